import Courier
import CourierAsyncHTTPClient
import CourierCache
import CourierTesting
import Foundation
import OpenAPIRuntime

/// A loopback server, a cache file in a fresh temporary folder, and a client with the cache.
struct CacheFixture {
    let server: MockServer
    let directory: URL
    let store: SQLiteCacheStorage
    let cache: HTTPCache
    let client: Client
    let clock: TestDate

    static func make(
        maximumSize: Int = 10 << 20,
        offlineAllowance: TimeInterval? = 7 * 24 * 3600,
        extraMiddlewares: [any ClientMiddleware] = [],
        transport: any ClientTransport = AsyncHTTPClientTransport()
    ) async throws -> CacheFixture {
        let server = try await MockServer.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-cache-\(UUID().uuidString)")
        let store = try SQLiteCacheStorage(fileURL: directory.appendingPathComponent("cache.sqlite"), maximumSize: maximumSize)
        let clock = TestDate()
        let cache = HTTPCache(storage: store, offlineAllowance: offlineAllowance, now: { clock.now })
        let client = Client(baseURL: server.baseURL, transport: transport, middlewares: extraMiddlewares + [cache])
        return CacheFixture(server: server, directory: directory, store: store, cache: cache, client: client, clock: clock)
    }

    /// The fixture itself for ``StoreLife/fresh``; for ``StoreLife/reopened``, the same server, file
    /// and clock with a new store, cache and client, as an app sees them after a restart (once the
    /// first cache has written what it accepted).
    func after(_ life: StoreLife) async throws -> CacheFixture {
        guard life == .reopened else { return self }
        await cache.flush()
        let reopened = try SQLiteCacheStorage(fileURL: directory.appendingPathComponent("cache.sqlite"), maximumSize: store.maximumSize)
        let clock = self.clock
        let cache = HTTPCache(storage: reopened, offlineAllowance: cache.offlineAllowance, now: { clock.now })
        let client = Client(baseURL: server.baseURL, transport: AsyncHTTPClientTransport(), middlewares: [cache])
        return CacheFixture(server: server, directory: directory, store: reopened, cache: cache, client: client, clock: clock)
    }

    func tearDown() async {
        try? await server.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Whether a scenario's second half runs on the store that stored the response, or on one
/// reopened from its file (persistence across restarts); conformance tests run both.
enum StoreLife: String, CaseIterable, Sendable {
    case fresh, reopened
}

/// A settable "now" for freshness, so tests age entries without sleeping.
final class TestDate: Sendable {
    private let current = Locked(Date())
    var now: Date { current.current }
    func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }
}

/// `GET /feed` (or another path) decoding loose JSON.
struct Feed: Endpoint {
    typealias Response = JSON
    var path: EndpointPath = "/feed"
    var cachePolicy: CachePolicy? = nil
    var headers: HTTPFields = [:]
}

/// `POST /feed`, which invalidates the feed.
struct PostToFeed: Endpoint {
    typealias Response = Empty
    var method: HTTPRequest.Method { .post }
    var path: EndpointPath { "/feed" }
    var parameters: Parameters { ["text": "hi"] }
}

/// A counting route answering `{"n": <call number>}` with the given header fields.
func countingRoute(_ server: MockServer, _ path: String = "/feed", headers: [MockHeader]) {
    let counter = Locked(0)
    server.route("GET", path) { _ in
        let n = counter.withLock { value -> Int in
            value += 1
            return value
        }
        return .json(#"{"n":\#(n)}"#, headers: headers)
    }
}

/// The transports the cache's end-to-end tests run over.
enum CacheTransport: String, CaseIterable, Sendable {
    case urlSession, asyncHTTPClient

    func make() -> any ClientTransport {
        switch self {
        case .urlSession: URLSessionTransport()
        case .asyncHTTPClient: AsyncHTTPClientTransport()
        }
    }
}
