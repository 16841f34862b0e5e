import Courier
import CourierAsyncHTTPClient
import CourierCache
import CourierCachePostgres
import CourierTesting
import Foundation
import HTTPTypes
import PostgresNIO
import Testing

/// RFC 9111's rules for a shared cache (one many end users reach) against a private one's, each
/// over a socket in both modes, on the in-memory storage and on an SQLite file.
@Suite struct SharedCacheTests {
    enum Store: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case memory, sqlite
        var testDescription: String { rawValue }
    }

    /// A server, a client whose cache applies `sharing`'s rules on `store`, and a clock the test moves.
    func withCache(
        _ sharing: CacheSharing, _ store: Store, _ body: (MockServer, Cached, TestDate) async throws -> Void
    ) async throws {
        let server = try await MockServer.start()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-shared-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let storage: any CacheStorage = switch store {
        case .memory: InMemoryCacheStorage(maximumSize: 1 << 20)
        case .sqlite: try SQLiteCacheStorage(fileURL: folder.appendingPathComponent("cache.sqlite"), maximumSize: 1 << 20)
        }
        let clock = TestDate()
        let cache = HTTPCache(storage: storage, sharing: sharing, now: { clock.now })
        #expect(cache.sharing == sharing)
        let client = Client(baseURL: server.baseURL, transport: AsyncHTTPClientTransport(), middlewares: [cache])
        do {
            try await body(server, Cached(client: client, cache: cache), clock)
        } catch {
            try? await server.shutdown()
            throw error
        }
        try? await server.shutdown()
    }

    /// A client and its cache, which writes after a call returns.
    struct Cached {
        let client: Client
        let cache: HTTPCache
    }

    /// Two GETs of `/feed`, the first stored before the second: how many reached the server, and
    /// the second response.
    func twice(_ cached: Cached, _ server: MockServer, headers: HTTPFields = [:], between: () -> Void = {}) async throws
        -> (calls: Int, second: Response<JSON>)
    {
        _ = try await cached.client.response(for: Feed(headers: headers), cachePolicy: .followHTTP)
        await cached.cache.flush()
        between()
        let second = try await cached.client.response(for: Feed(headers: headers), cachePolicy: .followHTTP)
        return (server.recordedRequests.count, second)
    }

    @Test(arguments: [CacheSharing.private, .shared], Store.allCases)
    func aPrivateResponseIsStoredOnlyByAPrivateCache(_ sharing: CacheSharing, _ store: Store) async throws {
        try await withCache(sharing, store) { server, client, _ in
            countingRoute(server, headers: [MockHeader("Cache-Control", "private, max-age=60")])
            let calls = try await twice(client, server).calls
            #expect(calls == (sharing == .shared ? 2 : 1))
        }
    }

    @Test(arguments: [CacheSharing.private, .shared], Store.allCases)
    func sMaxAgeCountsForASharedCacheOnly(_ sharing: CacheSharing, _ store: Store) async throws {
        try await withCache(sharing, store) { server, client, _ in
            countingRoute(server, headers: [MockHeader("Cache-Control", "max-age=0, s-maxage=60")])
            let calls = try await twice(client, server).calls
            #expect(calls == (sharing == .shared ? 1 : 2))
        }
    }

    @Test(arguments: [CacheSharing.private, .shared], Store.allCases)
    func proxyRevalidateAndSMaxAgeForbidStaleUseInASharedCache(_ sharing: CacheSharing, _ store: Store) async throws {
        for directives in ["max-age=1, proxy-revalidate", "max-age=1, s-maxage=1"] {
            try await withCache(sharing, store) { server, client, clock in
                countingRoute(server, headers: [MockHeader("Cache-Control", directives)])
                let acceptsStale: HTTPFields = [.cacheControl: "max-stale=3600"]
                let calls = try await twice(client, server, headers: acceptsStale) { clock.advance(by: 10) }.calls
                #expect(calls == (sharing == .shared ? 2 : 1), "\(directives)")
            }
        }
    }

    @Test(arguments: [CacheSharing.private, .shared], Store.allCases)
    func aResponseToACredentialedRequestIsSharedOnlyWhenItSaysSo(_ sharing: CacheSharing, _ store: Store) async throws {
        let credentialed: HTTPFields = [.authorization: "Bearer service-token"]
        try await withCache(sharing, store) { server, client, _ in
            countingRoute(server, headers: [MockHeader("Cache-Control", "max-age=60")])
            let calls = try await twice(client, server, headers: credentialed).calls
            #expect(calls == (sharing == .shared ? 2 : 1))
        }
        for allowing in ["public, max-age=60", "s-maxage=60", "max-age=60, must-revalidate"] {
            try await withCache(sharing, store) { server, client, _ in
                countingRoute(server, headers: [MockHeader("Cache-Control", allowing)])
                let calls = try await twice(client, server, headers: credentialed).calls
                // A private cache ignores s-maxage: without max-age the response is stale at once.
                let ignored = sharing == .private && !allowing.contains("max-age")
                #expect(calls == (ignored ? 2 : 1), "\(allowing)")
            }
        }
    }

    @Test(arguments: [CacheSharing.private, .shared], Store.allCases)
    func setCookieIsNeverServedFromASharedCache(_ sharing: CacheSharing, _ store: Store) async throws {
        try await withCache(sharing, store) { server, client, _ in
            countingRoute(server, headers: [MockHeader("Cache-Control", "max-age=60"), MockHeader("Set-Cookie", "session=of-user-1")])
            let (calls, second) = try await twice(client, server)
            #expect(calls == 1 && second.source == .cache)
            #expect(second.head.headerFields[.setCookie] == (sharing == .shared ? nil : "session=of-user-1"))
        }
    }

    @Test func eachStorageSaysWhomItServes() async throws {
        #expect(HTTPCache(storage: InMemoryCacheStorage(maximumSize: 1 << 20)).sharing == .private)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-shared-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(HTTPCache(storage: try SQLiteCacheStorage(fileURL: folder.appendingPathComponent("c.sqlite"), maximumSize: 1 << 20)).sharing == .private)
        // Never run: the storage only says what it is.
        let database = PostgresClient(configuration: .init(host: "127.0.0.1", port: 1, username: "nobody", password: nil, database: nil, tls: .disable))
        let postgres = PostgresCacheStorage(client: database, maximumSize: 1 << 20)
        #expect(HTTPCache(storage: postgres).sharing == .shared)
        #expect(HTTPCache(storage: postgres, sharing: .private).sharing == .private)
    }
}
