import CourierCache
import CourierCachePostgres
import Foundation
import PostgresNIO
import Testing

/// The tables are migrated by version: a database an earlier Courier made is brought up to this
/// one's, keeping its entries; one a later Courier made is refused, not downgraded.
@Suite(.timeLimit(.minutes(3)), .enabled(if: ThrowawayPostgres.isAvailable, "PostgreSQL is not installed"))
struct SchemaTests {
    /// A database as version 2 left it: the tables, without the store's functions.
    static func downgradeToVersion2(_ client: PostgresClient) async throws {
        try await client.query("DROP FUNCTION courier_cache_put")
        try await client.query("DROP FUNCTION courier_cache_settle")
        try await client.query("UPDATE courier_cache_meta SET value = '2'::bytea WHERE name = 'version'")
    }

    @Test func aDatabaseAtVersion2IsMigratedAndKeepsItsEntries() async throws {
        let server = try ThrowawayPostgres.shared.get()
        let database = try await server.makeDatabase()
        try await server.withClient(database: database) { client in
            let first = PostgresCacheStorage(client: client, maximumSize: 1 << 20, timeout: .seconds(30))
            let kept = StoreFixtures.key("/kept")
            _ = try #require(try await StoreFixtures.put(first, kept, body: Data("kept".utf8)))
            try await Self.downgradeToVersion2(client)

            let upgraded = PostgresCacheStorage(client: client, maximumSize: 1 << 20, timeout: .seconds(30))
            #expect(try await upgraded.variants(of: kept, inlineBodyLimit: 1_000).first?.body == Data("kept".utf8))
            _ = try #require(try await StoreFixtures.put(upgraded, StoreFixtures.key("/new"), body: Data("new".utf8)))
            #expect(try await upgraded.totals().entryCount == 2)
            var version = ""
            for try await value in try await client.query("SELECT value FROM courier_cache_meta WHERE name = 'version'").decode(Data.self) {
                version = String(decoding: value, as: UTF8.self)
            }
            #expect(version == "3")
        }
    }

    @Test func aDatabaseAtALaterVersionIsRefused() async throws {
        let server = try ThrowawayPostgres.shared.get()
        let database = try await server.makeDatabase()
        try await server.withClient(database: database) { client in
            _ = try await PostgresCacheStorage(client: client, maximumSize: 1 << 20, timeout: .seconds(30)).secretKey()
            try await client.query("UPDATE courier_cache_meta SET value = '4'::bytea WHERE name = 'version'")
            let older = PostgresCacheStorage(client: client, maximumSize: 1 << 20, timeout: .seconds(30))
            await #expect(throws: PostgresCacheError.newerSchema(4)) {
                try await older.variants(of: StoreFixtures.key("/any"), inlineBodyLimit: 0)
            }
        }
    }
}
