import Courier
import CourierCache
@testable import CourierCachePostgres
import CourierTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

/// What a frozen database may hold of the app: the storage returns at each operation's timeout,
/// leaving the hung query to end on its own, and refuses new work at once while four such
/// queries still hold their connections, so the app's pool is never drained by the cache.
@Suite(.serialized, .timeLimit(.minutes(5)), .enabled(if: ThrowawayPostgres.isAvailable, "PostgreSQL is not installed"))
struct AbandonedWorkTests {
    @Test func aFrozenDatabaseHoldsAtMostFourAbandonedQueries() async throws {
        let postgres = try await ThrowawayPostgres.startPrivate()
        let database = try await postgres.makeDatabase()
        // Eight connections kept open, each of which a frozen database will hold.
        var configuration = postgres.configuration(database: database)
        configuration.options.minimumConnections = 8
        let client = PostgresClient(configuration: configuration)
        let running = Task { await client.run() }
        defer { running.cancel() }
        // The schema, made by a patient instance: the one under test has a short timeout.
        _ = try await PostgresCacheStorage(client: client, maximumSize: 1 << 20, timeout: .seconds(60)).secretKey()
        let storage = PostgresCacheStorage(client: client, maximumSize: 1 << 20, timeout: .seconds(2))
        let key = StoreFixtures.key()
        do {
            // The pool's connections, open and used once.
            _ = await eventually(within: .seconds(60)) { (try? await storage.variants(for: key)) != nil }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await client.query("SELECT pg_sleep(0.3)", logger: Logger(label: "courier.test")) }
                }
                try await group.waitForAll()
            }
            let opened = try await eventually(within: .seconds(60)) {
                let rows = try await client.query(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()", logger: Logger(label: "courier.test"))
                for try await count in rows.decode(Int64.self) { return count >= 8 }
                return false
            }
            #expect(opened, "the pool's eight connections are open")
            try await postgres.freeze(true)
            var errors: [PostgresCacheError] = []
            for _ in 0..<8 {
                do {
                    _ = try await storage.variants(for: key)
                } catch let error as PostgresCacheError {
                    errors.append(error)
                }
                #expect(storage.limit.abandonedCount <= PostgresCacheStorage.maximumAbandoned)
            }
            let timedOut = errors.filter { if case .timedOut = $0 { true } else { false } }.count
            let refused = errors.filter { if case .stalled = $0 { true } else { false } }.count
            #expect(errors.count == 8, "every operation failed, none hung")
            #expect(timedOut == PostgresCacheStorage.maximumAbandoned, "four queries left to the frozen database")
            #expect(refused == 8 - PostgresCacheStorage.maximumAbandoned, "then refused at once, no query sent")
            try await postgres.freeze(false)
            #expect(await eventually(within: .seconds(60)) { storage.limit.abandonedCount == 0 }, "the queries ended once it thawed")
            #expect(await eventually(within: .seconds(60)) { (try? await storage.variants(for: key)) != nil }, "and works again")
        } catch {
            try? await postgres.freeze(false)
            await postgres.shutDown()
            throw error
        }
        await postgres.shutDown()
    }
}
