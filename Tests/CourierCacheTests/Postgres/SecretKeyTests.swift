import Courier
import CourierAsyncHTTPClient
import CourierCache
import CourierCachePostgres
import CourierTesting
import Foundation
import HTTPTypes
import PostgresNIO
import Testing

/// The key secret values are hashed with: the app's own (never written to the database) or the
/// database's, at least 32 bytes either way.
@Suite(.timeLimit(.minutes(3)), .enabled(if: ThrowawayPostgres.isAvailable, "PostgreSQL is not installed"))
struct SecretKeyTests {
    /// A pool that is never run: the storage only checks what it was given.
    static let idle = PostgresClient(configuration: .init(host: "127.0.0.1", port: 1, username: "nobody", password: nil, database: nil, tls: .disable))

    @Test func anAppsKeyShorterThan32BytesIsRefused() {
        #expect(throws: PostgresCacheError.shortSecretKey(bytes: 16)) {
            try PostgresCacheStorage(client: Self.idle, maximumSize: 1 << 20, secretKey: Array(repeating: 7, count: 16))
        }
    }

    @Test func theAppsKeyHashesForEveryInstanceAndNeverReachesTheDatabase() async throws {
        let server = try ThrowawayPostgres.shared.get()
        let database = try await server.makeDatabase()
        let origin = try await MockServer.start()
        defer { Task { try? await origin.shutdown() } }
        origin.route("GET", "/mine") { _ in .json(#"{"mine":true}"#, headers: [MockHeader("Cache-Control", "max-age=600")]) }
        try await server.withClient(database: database) { client in
            let key = (0 ..< 32).map { UInt8($0) }
            func cache(_ key: [UInt8]) throws -> HTTPCache {
                HTTPCache(storage: try PostgresCacheStorage(client: client, maximumSize: 1 << 20, secretKey: key, timeout: .seconds(30)), sharing: .private)
            }
            func call(_ cache: HTTPCache, policy: CachePolicy) async throws -> Response<JSON> {
                let client = Client(baseURL: origin.baseURL, transport: AsyncHTTPClientTransport(), middlewares: [cache])
                return try await client.response(for: Feed(path: "/mine", headers: [.authorization: "Bearer token-of-alice"]), cachePolicy: policy)
            }
            let first = try cache(key)
            _ = try await call(first, policy: .followHTTP)
            await first.flush()
            // Another instance with the same key finds the entry kept under the token's hash...
            #expect(try await call(try cache(key), policy: .cacheOnly).source == .cache)
            // ...one with another key doesn't.
            await #expect(throws: CourierError.self) { try await call(try cache(key.reversed()), policy: .cacheOnly) }
            var rows = 0
            for try await count in try await client.query("SELECT count(*) FROM courier_cache_meta WHERE name = 'secret_key'").decode(Int64.self) {
                rows = Int(count)
            }
            #expect(rows == 0, "the app's key is never written to the database")
        }
    }

    @Test func aShortKeyInTheDatabaseIsRefused() async throws {
        let server = try ThrowawayPostgres.shared.get()
        let database = try await server.makeDatabase()
        try await server.withClient(database: database) { client in
            let storage = PostgresCacheStorage(client: client, maximumSize: 1 << 20, timeout: .seconds(30))
            #expect(try await storage.secretKey().count == 32)
            try await client.query("UPDATE courier_cache_meta SET value = '\\x0102'::bytea WHERE name = 'secret_key'")
            let another = PostgresCacheStorage(client: client, maximumSize: 1 << 20, timeout: .seconds(30))
            await #expect(throws: PostgresCacheError.shortSecretKey(bytes: 2)) { try await another.secretKey() }
        }
    }
}
