import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import CourierCache
import Foundation
import NIOCore
import NIOHTTP1
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One client under test, as the operations the scenarios call.
struct Subject: Sendable {
    /// e.g. `Courier/AHC`.
    var name: String
    /// The raw transport this one is compared with (nil for a raw transport itself).
    var baseline: String?
    var getSmall: @Sendable (Int) async throws -> Void
    var getLarge: @Sendable () async throws -> Void
    var post: @Sendable () async throws -> Void
    var getCached: @Sendable () async throws -> Void
    /// The cached resource's bytes, not decoded.
    var getCachedBytes: @Sendable () async throws -> Void
    /// `GET /cached.json?<name>=<number>`, decoded: one of many distinct URLs of the cached resource.
    var getFeed: @Sendable (String, Int) async throws -> Void = { _, _ in throw BenchError("this client has no getFeed") }
    /// Waits for what the subject's calls left running (the cache's writes); run at the end of each measured block.
    var finishBackgroundWork: (@Sendable () async -> Void)?

    /// A subject that only takes part in the scenarios over many cached URLs.
    static func feedOnly(_ name: String, baseline: String, getFeed: @escaping @Sendable (String, Int) async throws -> Void) -> Subject {
        let elsewhere: @Sendable () async throws -> Void = { throw BenchError("\(name) runs only in the cache-store scenarios") }
        return Subject(
            name: name, baseline: baseline, getSmall: { _ in try await elsewhere() }, getLarge: elsewhere, post: elsewhere,
            getCached: elsewhere, getCachedBytes: elsewhere, getFeed: getFeed
        )
    }
}

/// Raw AsyncHTTPClient: what an app would write by hand (request, collect, JSONDecoder).
struct RawAHC: Sendable {
    let client: HTTPClient
    let base: String
    let decoder = JSONDecoder()
    let encoder = JSONEncoder()

    func get<T: Decodable>(_ path: String, as type: T.Type) async throws -> T {
        try decoder.decode(T.self, from: try await bytes(path))
    }

    func bytes(_ path: String) async throws -> Data {
        var request = HTTPClientRequest(url: base + path)
        request.headers.add(name: "Accept", value: "application/json")
        let response = try await client.execute(request, deadline: .now() + .seconds(60))
        guard response.status == .ok else { throw BenchError("raw AHC: status \(response.status.code) for \(path)") }
        let buffer = try await response.body.collect(upTo: 16 << 20)
        return Data(buffer.readableBytesView)
    }

    func post<T: Decodable>(_ path: String, _ value: some Encodable, as type: T.Type) async throws -> T {
        var request = HTTPClientRequest(url: base + path)
        request.method = .POST
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try encoder.encode(value)))
        let response = try await client.execute(request, deadline: .now() + .seconds(60))
        guard response.status == .ok else { throw BenchError("raw AHC: status \(response.status.code) for POST \(path)") }
        let buffer = try await response.body.collect(upTo: 16 << 20)
        return try decoder.decode(T.self, from: Data(buffer.readableBytesView))
    }
}

/// Raw URLSession: a data task wrapped in a continuation, then JSONDecoder.
struct RawURLSession: Sendable {
    let session: URLSession
    let base: String
    let decoder = JSONDecoder()
    let encoder = JSONEncoder()

    func get<T: Decodable>(_ path: String, as type: T.Type) async throws -> T {
        guard let url = URL(string: base + path) else { throw BenchError("bad URL \(base + path)") }
        var request = URLRequest(url: url)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        return try decoder.decode(T.self, from: try await data(for: request))
    }

    func bytes(_ path: String) async throws -> Data {
        guard let url = URL(string: base + path) else { throw BenchError("bad URL \(base + path)") }
        var request = URLRequest(url: url)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        return try await data(for: request)
    }

    func post<T: Decodable>(_ path: String, _ value: some Encodable, as type: T.Type) async throws -> T {
        guard let url = URL(string: base + path) else { throw BenchError("bad URL \(base + path)") }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try encoder.encode(value)
        return try decoder.decode(T.self, from: try await data(for: request))
    }

    private func data(for request: URLRequest) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let error { return continuation.resume(throwing: error) }
                guard let http = response as? HTTPURLResponse, http.statusCode == 200 else {
                    return continuation.resume(throwing: BenchError("raw URLSession: bad response for \(request.url?.path ?? "")"))
                }
                continuation.resume(returning: data ?? Data())
            }.resume()
        }
    }
}

/// The four clients, sharing one `HTTPClient` and one `URLSession` between raw and Courier.
struct Subjects {
    let http: HTTPClient
    let session: URLSession
    let rawAHC: Subject
    /// The same raw AHC code under another name, compared with `raw AHC`: the bench's own bias and noise (`--control`).
    let rawAHCControl: Subject
    let courierAHC: Subject
    /// Courier over AHC with both telemetry middlewares and the default no-op backends (`--telemetry`).
    let courierAHCTelemetry: Subject
    let rawURLSession: Subject
    let courierURLSession: Subject
    /// Courier over AHC with HTTPCache (`.followHTTP`, on-disk store): every GET of the one cached
    /// URL is a fresh hit read from the store.
    let courierCache: Subject
    let cacheClient: Client
    /// Courier over AHC with HTTPCache on a store filled with ``storeKeys`` distinct URLs: hits
    /// spread over all of them.
    let courierStoreHit: Subject
    /// `SQLiteCacheStorage.lookup` alone on the same store and keys: the store's own share of a hit.
    /// Courier over AHC with HTTPCache where every call is a new URL: the network, then the store's write.
    let courierMissAndStore: Subject
    /// The same miss asked not to be stored: the cache's path without the store's part.
    let courierMissNotStored: Subject
    let storeClient: Client
    /// The cache of ``courierStoreHit``, over the store ``fillStore(log:)`` fills.
    let storeCache: HTTPCache
    /// How many distinct URLs the store-hit scenario fills the cache with.
    static let storeKeys = 20_000
    /// Partial Courier stacks between each raw transport and Courier over it (`--breakdown`).
    let breakdown: Breakdown
    private let cacheDirectory: URL

    /// The four clients, with the control subject after raw AHC when asked for; with `breakdown`, each
    /// raw transport is followed by the partial stacks on it.
    func all(control: Bool, breakdown withBreakdown: Bool = false, telemetry: Bool = false) -> [Subject] {
        let ahcParts = withBreakdown ? [breakdown.rawAHCBoundedBody, breakdown.rawAHCWithHTTPTypes, breakdown.ahcTransport] : []
        let urlSessionParts = withBreakdown ? [breakdown.urlSessionTransport] : []
        let courier = telemetry ? [courierAHC, courierAHCTelemetry] : [courierAHC]
        return (control ? [rawAHC, rawAHCControl] : [rawAHC]) + ahcParts + courier + [rawURLSession] + urlSessionParts + [courierURLSession]
    }

    init(baseURL: URL) throws {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        let session = URLSession(configuration: URLSessionTransport.defaultConfiguration())
        self.http = http
        self.session = session
        let base = baseURL.absoluteString

        let ahc = RawAHC(client: http, base: base)
        rawAHC = Self.raw("raw AHC", baseline: nil, ahc)
        rawAHCControl = Self.raw("raw AHC (control)", baseline: "raw AHC", ahc)
        let urls = RawURLSession(session: session, base: base)
        rawURLSession = Subject(
            name: "raw URLSession", baseline: nil,
            getSmall: { n in _ = try await urls.get("/small.json?n=\(n)", as: SmallUser.self) },
            getLarge: { _ = try await urls.get(Fixtures.largePath, as: [LargeItem].self) },
            post: { _ = try await urls.post(Fixtures.postPath, Fixtures.note, as: PostAnswer.self) },
            getCached: { _ = try await urls.get(Fixtures.cachedPath, as: CachedFeed.self) },
            getCachedBytes: { _ = try await urls.bytes(Fixtures.cachedPath) }
        )
        courierAHC = Self.courier(
            "Courier/AHC", baseline: "raw AHC", Client(baseURL: baseURL, transport: AsyncHTTPClientTransport(client: http))
        )
        courierAHCTelemetry = Self.courier(
            "Courier/AHC + telemetry (no-op)", baseline: "raw AHC",
            Client(
                baseURL: baseURL, transport: AsyncHTTPClientTransport(client: http),
                middlewares: [TelemetryMiddleware(), AttemptTelemetryMiddleware()]
            )
        )
        courierURLSession = Self.courier(
            "Courier/URLSession", baseline: "raw URLSession", Client(baseURL: baseURL, transport: URLSessionTransport())
        )

        cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-bench-cache-\(getpid())")
        try? FileManager.default.removeItem(at: cacheDirectory)
        let store = try SQLiteCacheStorage(fileURL: cacheDirectory.appendingPathComponent("cache.sqlite"), maximumSize: 50 << 20)
        let cached = Client(
            baseURL: baseURL, transport: AsyncHTTPClientTransport(client: http), middlewares: [HTTPCache(storage: store)]
        ) { $0.cachePolicy = .followHTTP }
        cacheClient = cached
        breakdown = Breakdown(http: http, session: session, baseURL: baseURL)
        courierCache = Self.courier("Courier+HTTPCache hit, one URL", baseline: "raw AHC", cached)

        let hitStore = try SQLiteCacheStorage(fileURL: cacheDirectory.appendingPathComponent("store.sqlite"), maximumSize: 200 << 20)
        let hitCache = HTTPCache(storage: hitStore)
        let storeClient = Client(
            baseURL: baseURL, transport: AsyncHTTPClientTransport(client: http), middlewares: [hitCache]
        ) { $0.cachePolicy = .followHTTP }
        self.storeCache = hitCache
        self.storeClient = storeClient
        courierStoreHit = .feedOnly("Courier+HTTPCache hit from the store", baseline: "raw AHC") { name, n in
            _ = try await storeClient.send(FeedEndpoint(name: name, n: n))
        }
        let missStore = try SQLiteCacheStorage(fileURL: cacheDirectory.appendingPathComponent("miss.sqlite"), maximumSize: 200 << 20)
        let missCache = HTTPCache(storage: missStore)
        let missClient = Client(
            baseURL: baseURL, transport: AsyncHTTPClientTransport(client: http), middlewares: [missCache]
        ) { $0.cachePolicy = .followHTTP }
        var missAndStore = Subject.feedOnly("Courier+HTTPCache miss + store", baseline: "Courier/AHC") { name, n in
            _ = try await missClient.send(FeedEndpoint(name: name, n: n))
        }
        // The writes count against the miss, not against the subject measured after it.
        missAndStore.finishBackgroundWork = { await missCache.flush() }
        courierMissAndStore = missAndStore
        courierMissNotStored = .feedOnly("Courier+HTTPCache miss, not stored", baseline: "Courier/AHC") { name, n in
            _ = try await missClient.send(FeedEndpoint(name: name, n: n, notToStore: true))
        }
    }

    /// Raw AsyncHTTPClient code as a subject (twice with `--control`: the same code under two names).
    private static func raw(_ name: String, baseline: String?, _ ahc: RawAHC) -> Subject {
        Subject(
            name: name, baseline: baseline,
            getSmall: { n in _ = try await ahc.get("/small.json?n=\(n)", as: SmallUser.self) },
            getLarge: { _ = try await ahc.get(Fixtures.largePath, as: [LargeItem].self) },
            post: { _ = try await ahc.post(Fixtures.postPath, Fixtures.note, as: PostAnswer.self) },
            getCached: { _ = try await ahc.get(Fixtures.cachedPath, as: CachedFeed.self) },
            getCachedBytes: { _ = try await ahc.bytes(Fixtures.cachedPath) },
            getFeed: { name, n in _ = try await ahc.get("\(Fixtures.cachedPath)?\(name)=\(n)", as: CachedFeed.self) }
        )
    }

    private static func courier(_ name: String, baseline: String, _ client: Client) -> Subject {
        Subject(
            name: name, baseline: baseline,
            getSmall: { n in _ = try await client.send(SmallEndpoint(n: n)) },
            getLarge: { _ = try await client.send(LargeEndpoint()) },
            post: { _ = try await client.send(PostEndpoint()) },
            getCached: { _ = try await client.send(CachedEndpoint()) },
            getCachedBytes: { _ = try await client.send(CachedBytesEndpoint()) },
            getFeed: { name, n in _ = try await client.send(FeedEndpoint(name: name, n: n)) }
        )
    }

    func shutdown() async {
        try? await http.shutdown()
        session.invalidateAndCancel()
        try? FileManager.default.removeItem(at: cacheDirectory)
    }
}

extension Subjects {
    /// Fills the cache and checks that the next call is answered from it without the network.
    func checkCacheHits() async throws {
        _ = try await cacheClient.response(for: CachedEndpoint())
        let second = try await cacheClient.response(for: CachedEndpoint())
        guard second.source == .cache else { throw BenchError("the cache scenario expected a fresh hit, got \(second.source)") }
    }

    /// Fills the store of ``courierStoreHit`` with ``storeKeys`` URLs through the client (each a
    /// miss and a store), writes them, and checks that one is then answered from the cache.
    func fillStore(log: (String) -> Void) async throws {
        let started = ContinuousClock.now
        let client = storeClient
        try await runConcurrently(count: Self.storeKeys, width: 8) { n in
            _ = try await client.send(FeedEndpoint(name: "k", n: n))
        }
        let statistics = try await storeCache.statistics()
        guard statistics.entryCount >= Self.storeKeys else {
            throw BenchError("the store holds \(statistics.entryCount) entries, expected \(Self.storeKeys)")
        }
        let check = try await storeClient.response(for: FeedEndpoint(name: "k", n: Self.storeKeys / 2))
        guard check.source == .cache else { throw BenchError("the store-hit scenario expected a hit, got \(check.source)") }
        log("  filled the store with \(statistics.entryCount) entries (\(statistics.totalBytes >> 20) MB) in \(started.duration(to: .now))")
    }
}

/// The key of the `index`-th hit over the filled store: a stride that visits all of them before
/// repeating, so consecutive hits are far apart (SQLite's page cache holds few of them).
func spreadKey(_ index: Int) -> Int {
    (index &* 7919) % Subjects.storeKeys
}
