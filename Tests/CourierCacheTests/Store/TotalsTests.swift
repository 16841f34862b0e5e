@testable import CourierCache
import Foundation
import GRDB
import HTTPTypes
import Testing

/// The entry count and size kept in `totals` (for eviction and statistics) against a count of the
/// rows themselves, whichever path wrote them.
@Suite struct TotalsTests {
    @Test func totalsMatchTheRowsAfterWritesReplacementsRemovalsHeaderUpdatesAndEvictions() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("cache.sqlite")
            let store = try SQLiteCacheStorage(fileURL: file, maximumSize: 12_000)
            // New keys and a replacement of one of them.
            for (index, size) in [1000, 1500, 700].enumerated() {
                try await StoreFixtures.put(store, StoreFixtures.key("first\(index)"), body: Data(count: size))
            }
            let replaced = try #require(try await StoreFixtures.put(store, StoreFixtures.key("first1"), body: Data(count: 300)))
            try await Self.expectTotalsMatchRows(store, file, entries: 3)

            // Header fields that grow the metadata.
            var fields = replaced.headers
            fields.append(HTTPField(name: try #require(HTTPField.Name("X-Extra")), value: String(repeating: "x", count: 400)))
            #expect(try await store.updateHeaders(of: replaced, headers: fields, requestTime: .now, responseTime: .now))
            try await Self.expectTotalsMatchRows(store, file, entries: 3)

            // Stored, replaced, removed.
            try await StoreFixtures.put(store, StoreFixtures.key("direct"), body: Data(count: 2000))
            try await StoreFixtures.put(store, StoreFixtures.key("direct"), body: Data(count: 500))
            let removed = try #require(try await StoreFixtures.put(store, StoreFixtures.key("removed"), body: Data(count: 900)))
            #expect(try await store.remove(removed))
            try await Self.expectTotalsMatchRows(store, file, entries: 4)

            // Past the limit: eviction reads the totals each write has just added to.
            var evicted = 0
            for index in 0..<8 {
                evicted += try await store.store(StoreFixtures.response(StoreFixtures.key("more\(index)")), body: .bytes(Data(count: 1500))).evictedCount
            }
            #expect(evicted > 0)
            #expect(try await store.totals().totalBytes <= 12_000)
            try await Self.expectTotalsMatchRows(store, file, entries: nil)
        }
    }

    /// The store's totals equal a count and sum of the file's rows (and `entries`, when given).
    private static func expectTotalsMatchRows(_ store: SQLiteCacheStorage, _ file: URL, entries: Int?) async throws {
        let statistics = try await store.totals()
        let counted = try DatabaseQueue(path: file.path).read { db in
            try Row.fetchOne(db, sql: "SELECT COUNT(*) AS entries, COALESCE(SUM(bodySize + metaSize), 0) AS bytes FROM entry")
        }
        let row = try #require(counted)
        #expect(statistics.count == row["entries"])
        #expect(statistics.totalBytes == row["bytes"])
        if let entries { #expect(statistics.count == entries) }
    }
}
