import CourierCache
import CourierCachePostgres
import Foundation
import PostgresNIO
import Testing

/// The tables are migrated by version: a database an earlier Courier made is brought up to this
/// one's, keeping its entries; one a later Courier made is refused, not downgraded.
@Suite(.timeLimit(.minutes(3)), .enabled(if: ThrowawayPostgres.isAvailable, "PostgreSQL is not installed"))
struct SchemaTests {
    /// A database as version 3 left it: partitions' clears noted by time, and a store function that
    /// took a send time (its body stands in: only its signature matters to the migration).
    static func downgradeToVersion3(_ client: PostgresClient) async throws {
        try await client.query("DROP TABLE courier_cache_flight")  // version 5's
        try await client.query("DROP FUNCTION courier_cache_put")
        try await client.query("ALTER TABLE courier_cache_clear DROP COLUMN generation")
        try await client.query("DROP SEQUENCE courier_cache_clear_generation")
        try await client.query(
            """
            CREATE FUNCTION courier_cache_put(
                p_partition text, p_url text, p_method text, p_vary text, p_status integer, p_headers bytea,
                p_request_time double precision, p_response_time double precision, p_body_size bigint, p_meta_size bigint,
                p_stamp double precision, p_sent_after double precision, p_partition_seed bigint, p_limit bigint,
                p_first_chunk bytea, p_whole boolean)
            RETURNS TABLE (stored_id bigint, replaced_count bigint, replaced_bytes bigint, evicted_count bigint, evicted_bytes bigint)
            LANGUAGE sql AS 'SELECT NULL::bigint, 0::bigint, 0::bigint, 0::bigint, 0::bigint'
            """)
        try await client.query("UPDATE courier_cache_meta SET value = '3'::bytea WHERE name = 'version'")
    }

    /// A database as version 2 left it: the tables, without the store's functions.
    static func downgradeToVersion2(_ client: PostgresClient) async throws {
        try await downgradeToVersion3(client)
        try await client.query("DROP FUNCTION courier_cache_put")
        try await client.query("DROP FUNCTION courier_cache_settle")
        try await client.query("UPDATE courier_cache_meta SET value = '2'::bytea WHERE name = 'version'")
    }

    static func version(_ client: PostgresClient) async throws -> String {
        var version = ""
        for try await value in try await client.query("SELECT value FROM courier_cache_meta WHERE name = 'version'").decode(Data.self) {
            version = String(decoding: value, as: UTF8.self)
        }
        return version
    }

    /// A partition cleared under version 3 (noted by time) stays cleared for a store without a
    /// mark; a store that read the partition's mark after the migration goes in; the old store
    /// function is gone, not left beside the new one.
    @Test func aDatabaseAtVersion3KeepsItsClearsAsGenerations() async throws {
        let server = try ThrowawayPostgres.shared.get()
        let database = try await server.makeDatabase()
        try await server.withClient(database: database) { client in
            let first = PostgresCacheStorage(client: client, maximumSize: 1 << 20, timeout: .seconds(30))
            _ = try await first.secretKey()  // the tables, made
            try await Self.downgradeToVersion3(client)
            try await client.query("INSERT INTO courier_cache_clear (partition_key, cleared_at) VALUES ('alice', 1)")

            let upgraded = PostgresCacheStorage(client: client, maximumSize: 1 << 20, timeout: .seconds(30))
            let key = StoreFixtures.key("/profile", partition: "alice")
            #expect(try await StoreFixtures.put(upgraded, key, body: Data("early".utf8)) == nil, "the clear still wins")
            let mark = try #require(try await upgraded.lookup(key, inlineBodyLimit: 0).clearMark)
            #expect(mark.generation > 0)
            var response = StoreFixtures.response(key)
            response.clearMark = mark
            #expect(try await upgraded.store(response, body: .bytes(Data("later".utf8))).stored != nil)
            var functions: Int64 = 0
            for try await count in try await client.query("SELECT count(*) FROM pg_proc WHERE proname = 'courier_cache_put'").decode(Int64.self) {
                functions = count
            }
            #expect(functions == 1)
            #expect(try await Self.version(client) == "5")
        }
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
            #expect(try await upgraded.totals().count == 2)
            #expect(try await Self.version(client) == "5")
        }
    }

    @Test func aDatabaseAtALaterVersionIsRefused() async throws {
        let server = try ThrowawayPostgres.shared.get()
        let database = try await server.makeDatabase()
        try await server.withClient(database: database) { client in
            _ = try await PostgresCacheStorage(client: client, maximumSize: 1 << 20, timeout: .seconds(30)).secretKey()
            try await client.query("UPDATE courier_cache_meta SET value = '6'::bytea WHERE name = 'version'")
            let older = PostgresCacheStorage(client: client, maximumSize: 1 << 20, timeout: .seconds(30))
            await #expect(throws: PostgresCacheError.newerSchema(6)) {
                try await older.variants(of: StoreFixtures.key("/any"), inlineBodyLimit: 0)
            }
        }
    }
}
