import CourierCache
import CourierCachePostgres
import CourierTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

/// The one totals row is where a fleet's writers meet: a store touches it once, last, so it holds
/// it only to commit; a write that changes no size doesn't touch it at all.
@Suite(.timeLimit(.minutes(3)), .enabled(if: ThrowawayPostgres.isAvailable, "PostgreSQL is not installed"))
struct ContentionTests {
    /// Runs `body` while another transaction holds `lock` (a statement that takes a lock), then ends it.
    static func holding<T: Sendable>(
        _ lock: PostgresQuery, on client: PostgresClient, _ body: @Sendable () async throws -> T
    ) async throws -> T {
        let (held, release) = (Level(), Level())
        let holder = Task {
            defer { held.raise(to: 1) }  // a failed lock ends the wait too (and fails the test)
            try await client.withTransaction(logger: Logger(label: "courier.test")) { connection in
                try await connection.query(lock, logger: Logger(label: "courier.test"))
                held.raise(to: 1)
                await release.wait(until: 1)
            }
        }
        defer { release.raise(to: 1) }
        await held.wait(until: 1)
        let value = try await body()
        release.raise(to: 1)
        try await holder.value
        return value
    }

    /// Whether the totals row can be locked within a second by someone else.
    static func totalsAreFree(_ client: PostgresClient) async throws -> Bool {
        do {
            try await client.withTransaction(logger: Logger(label: "courier.test")) { connection in
                try await connection.query("SET LOCAL lock_timeout = '1s'", logger: Logger(label: "courier.test"))
                try await connection.query("UPDATE courier_cache_totals SET entries = entries WHERE id = 1", logger: Logger(label: "courier.test"))
            }
            return true
        } catch let error as PostgresTransactionError {
            if let closure = error.closureError as? PSQLError, closure.serverInfo?[.sqlState] == "55P03" { return false }
            throw error
        }
    }

    /// A body within one chunk (one statement) and one of five chunks (a transaction).
    @Test(arguments: [500, 5_000]) func aStoreHoldsNoTotalsWhileItsBodyGoesIn(bodySize: Int) async throws {
        let server = try ThrowawayPostgres.shared.get()
        let database = try await server.makeDatabase()
        try await server.withClient(database: database) { client in
            let storage = PostgresCacheStorage(client: client, maximumSize: 1 << 30, timeout: .seconds(60), chunkSize: 1_000)
            let key = StoreFixtures.key("/held")
            _ = try await storage.secretKey()  // the tables, made
            // The body's rows can't go in while the test holds their table: the store waits at its
            // first chunk, inside `courier_cache_put`, past the entry's insert (a replaced variant's
            // delete would wait too: its chunks go with it).
            let held = try await Self.holding("LOCK TABLE courier_cache_chunk IN EXCLUSIVE MODE", on: client) {
                let store = Task { try await StoreFixtures.put(storage, key, body: StoreFixtures.randomBody(bodySize)) }
                let waiting = try await eventually(within: .seconds(60)) {
                    let rows = try await client.query(
                        """
                        SELECT count(*) FROM pg_stat_activity
                        WHERE datname = current_database() AND wait_event_type = 'Lock'
                            AND query LIKE '%courier_cache_put(%'
                        """)
                    for try await count in rows.decode(Int64.self) { return count == 1 }
                    return false
                }
                #expect(waiting, "the store reached its body")
                return (try await Self.totalsAreFree(client), store)
            }
            #expect(held.0, "the totals row is free while the body goes in")
            let stored = try #require(try await held.1.value)
            let size = bodySize + CacheStorageSize.metadata(of: stored, headers: stored.headers)
            #expect(try await storage.totals() == CacheTotals(count: 1, totalBytes: size))
        }
    }

    /// A sign-out on another server commits while a store of the user's waits for the partition's
    /// lock: the store, once it has the lock, sees the clear and loses (its check is a statement
    /// of its own, after the lock, not one whose snapshot predates the clear).
    @Test(arguments: [500, 5_000]) func aClearThatCommitsWhileAStoreWaitsWins(bodySize: Int) async throws {
        let server = try ThrowawayPostgres.shared.get()
        let database = try await server.makeDatabase()
        try await server.withClient(database: database) { client in
            let storage = PostgresCacheStorage(client: client, maximumSize: 1 << 30, timeout: .seconds(60), chunkSize: 1_000)
            let key = StoreFixtures.key("/profile", partition: "alice")
            _ = try await storage.secretKey()  // the tables, made
            // The clear as `removeAll(.partition:)` makes it: the partition's lock, then its note.
            let clear: PostgresQuery = """
                WITH noted AS (INSERT INTO courier_cache_clear (partition_key, cleared_at)
                    VALUES ('alice', extract(epoch FROM clock_timestamp())))
                SELECT pg_advisory_xact_lock(hashtextextended('alice', 1))
                """
            let store = try await Self.holding(clear, on: client) {
                let store = Task { try await StoreFixtures.put(storage, key, body: StoreFixtures.randomBody(bodySize)) }
                let waiting = try await eventually(within: .seconds(60)) {
                    let rows = try await client.query(
                        """
                        SELECT count(*) FROM pg_stat_activity
                        WHERE datname = current_database() AND wait_event = 'advisory' AND query LIKE '%courier_cache_put(%'
                        """)
                    for try await count in rows.decode(Int64.self) { return count == 1 }
                    return false
                }
                #expect(waiting, "the store waits for the partition")
                return store
            }
            #expect(try await store.value == nil, "the clear won")
            #expect(try await storage.variants(of: key, inlineBodyLimit: 0).isEmpty)
            #expect(try await storage.totals() == CacheTotals())
        }
    }

    @Test func aWriteThatChangesNoSizeNeverWaitsForTheTotals() async throws {
        let server = try ThrowawayPostgres.shared.get()
        let database = try await server.makeDatabase()
        try await server.withClient(database: database) { client in
            // A patient timeout, for a machine the whole suite loads: a write that waited for the
            // held row would end only with it (and fail the test), one that doesn't returns at once.
            let storage = PostgresCacheStorage(client: client, maximumSize: 1 << 30, timeout: .seconds(60))
            let key = StoreFixtures.key("/same")
            let stored = try #require(try await StoreFixtures.put(storage, key, body: Data("body".utf8)))
            let before = try await storage.totals()
            try await Self.holding("SELECT * FROM courier_cache_totals WHERE id = 1 FOR UPDATE", on: client) {
                #expect(try await storage.removeAll(.url("https://example.com/elsewhere", partition: nil)) == 0)
                let updated = try await storage.updateHeaders(
                    of: stored, headers: stored.headers, requestTime: stored.requestTime, responseTime: stored.responseTime)
                #expect(updated, "the same headers again: no size changed")
            }
            #expect(try await storage.totals() == before)
        }
    }
}
