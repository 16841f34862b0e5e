@testable import CourierCache
import Foundation
import GRDB
import Testing

/// The entry count and size kept in `totals` (for eviction and statistics) against a count of the
/// rows themselves, whichever path wrote them.
@Suite struct TotalsTests {
    @Test func totalsMatchTheRowsAfterQueuedAndDirectWritesReplacementsRemovalsAndEvictions() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("cache.sqlite")
            let store = try CacheStore(fileURL: file, maximumSize: 12_000)
            // Queued by the writer, in one batch: new keys and a replacement of one of them.
            for (index, size) in [1000, 1500, 700].enumerated() {
                await Self.enqueue(store, StoreFixtures.key("queued\(index)"), size: size)
            }
            await Self.enqueue(store, StoreFixtures.key("queued1"), size: 300)
            await store.flush()
            try await Self.expectTotalsMatchRows(store, file, entries: 3)

            // Stored at once, replaced, removed.
            try await StoreFixtures.put(store, StoreFixtures.key("direct"), body: Data(count: 2000))
            try await StoreFixtures.put(store, StoreFixtures.key("direct"), body: Data(count: 500))
            let removed = try #require(try await StoreFixtures.put(store, StoreFixtures.key("removed"), body: Data(count: 900)))
            #expect(try await store.remove(removed))
            try await Self.expectTotalsMatchRows(store, file, entries: 4)

            // Past the limit: eviction reads the totals the batch has just added to.
            for index in 0..<8 { await Self.enqueue(store, StoreFixtures.key("more\(index)"), size: 1500) }
            await store.flush()
            let statistics = try await store.statistics()
            #expect(statistics.evictions > 0)
            #expect(statistics.totalBytes <= 12_000)
            try await Self.expectTotalsMatchRows(store, file, entries: nil)
        }
    }

    private static func enqueue(_ store: CacheStore, _ key: CacheKey, size: Int) async {
        await store.enqueue(
            key: key, varySelection: .none, status: 200, headers: StoreFixtures.headers, body: Data(count: size),
            requestTime: StoreFixtures.t0, responseTime: StoreFixtures.t0)
    }

    /// The store's statistics equal a count and sum of the file's rows (and `entries`, when given).
    private static func expectTotalsMatchRows(_ store: CacheStore, _ file: URL, entries: Int?) async throws {
        let statistics = try await store.statistics()
        let counted = try await DatabaseQueue(path: file.path).read { db in
            try Row.fetchOne(db, sql: "SELECT COUNT(*) AS entries, COALESCE(SUM(bodySize + metaSize), 0) AS bytes FROM entry")
        }
        let row = try #require(counted)
        #expect(statistics.entryCount == row["entries"])
        #expect(statistics.totalBytes == row["bytes"])
        if let entries { #expect(statistics.entryCount == entries) }
    }
}
