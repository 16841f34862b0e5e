@testable import CourierCache
import Foundation
import GRDB
import Testing

/// What the SQLite store does beyond every storage (see `StorageConformanceTests`): it persists,
/// and a hit on a variant used within the last minute writes nothing.
@Suite struct CacheStoreTests {
    @Test func persistsAcrossInstances() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("nested/dir/cache.sqlite")
            let body = StoreFixtures.randomBody(10_000)
            do {
                let store = try CacheStore(fileURL: file, maximumSize: 1_000_000)
                try await StoreFixtures.put(store, StoreFixtures.key(), body: body)
            }
            let reopened = try CacheStore(fileURL: file, maximumSize: 1_000_000)
            let entry = try #require(try await reopened.variants(for: StoreFixtures.key()).first)
            #expect(try await reopened.body(of: entry) == body)
        }
    }

    @Test func aHitOnAVariantUsedWithinTheMinuteWritesNothing() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("cache.sqlite")
            let store = try CacheStore(fileURL: file, maximumSize: 1 << 20)
            let stored = try #require(try await StoreFixtures.put(store, StoreFixtures.key("a"), body: Data("a".utf8)))
            let order = { try await DatabaseQueue(path: file.path).read { db in try Int.fetchOne(db, sql: "SELECT accessOrder FROM entry") } }
            let before = try await order()
            await store.recordUse(of: stored)
            #expect(try await order() == before, "stored just now: no write")
            await store.recordUse(of: stored.used(at: stored.lastAccess.addingTimeInterval(-2 * CacheStore.useGranularity)))
            #expect(try await order() != before)
            #expect(try await store.variants(for: stored.key).first?.lastAccess ?? .distantPast > stored.lastAccess)
        }
    }
}
