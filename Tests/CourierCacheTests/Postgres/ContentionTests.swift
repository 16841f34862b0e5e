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

    @Test func aStoreHoldsNoTotalsWhileItsBodyGoesIn() async throws {
        let server = try ThrowawayPostgres.shared.get()
        let database = try await server.makeDatabase()
        try await server.withClient(database: database) { client in
            let storage = PostgresCacheStorage(client: client, maximumSize: 1 << 30, timeout: .seconds(60), chunkSize: 1_000)
            let key = StoreFixtures.key("/held")
            _ = try await storage.secretKey()  // the tables, made
            // The body's rows can't go in while the test holds their table: the store waits there,
            // past its first statements (a replaced variant's delete would wait too: its chunks go with it).
            let free = try await Self.holding("LOCK TABLE courier_cache_chunk IN EXCLUSIVE MODE", on: client) {
                let store = Task { try await StoreFixtures.put(storage, key, body: StoreFixtures.randomBody(5_000)) }
                let waiting = try await eventually(within: .seconds(60)) {
                    let rows = try await client.query(
                        """
                        SELECT count(*) FROM pg_stat_activity
                        WHERE datname = current_database() AND wait_event_type = 'Lock'
                            AND query LIKE 'INSERT INTO courier_cache_chunk%'
                        """)
                    for try await count in rows.decode(Int64.self) { return count == 1 }
                    return false
                }
                #expect(waiting, "the store reached its body")
                let free = try await Self.totalsAreFree(client)
                return (free, store)
            }
            #expect(free.0, "the totals row is free while the body goes in")
            #expect(try await free.1.value != nil)
            #expect(try await storage.totals().entryCount == 1)
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
