import CourierCache
import Foundation
import Testing

@Suite struct EvictionTests {
    /// Room for three 1000-byte bodies (plus metadata), not four.
    static let limit = 3 * 1000 + 3 * 700

    @Test func evictsLeastRecentlyUsedAndTouchChangesTheOrder() async throws {
        let store = try CacheStore.inMemory(maximumSize: Self.limit)
        let keys = ["a", "b", "c", "d"].map { StoreFixtures.key($0) }
        let a = try #require(try await StoreFixtures.put(store, keys[0], body: Data(count: 1000)))
        try await StoreFixtures.put(store, keys[1], body: Data(count: 1000))
        try await StoreFixtures.put(store, keys[2], body: Data(count: 1000))
        await store.touch(a)
        try await StoreFixtures.put(store, keys[3], body: Data(count: 1000))
        #expect(try await store.variants(for: keys[0]).count == 1)
        #expect(try await store.variants(for: keys[1]).isEmpty)
        #expect(try await store.variants(for: keys[2]).count == 1)
        #expect(try await store.variants(for: keys[3]).count == 1)
        let statistics = try await store.statistics()
        #expect(statistics.evictions == 1)
        #expect(statistics.totalBytes <= Self.limit)
    }

    @Test func withoutTouchTheOldestGoesFirst() async throws {
        let store = try CacheStore.inMemory(maximumSize: Self.limit)
        let keys = (0..<6).map { StoreFixtures.key("item\($0)") }
        for key in keys { try await StoreFixtures.put(store, key, body: Data(count: 1000)) }
        for key in keys.prefix(3) { #expect(try await store.variants(for: key).isEmpty) }
        for key in keys.suffix(3) { #expect(try await store.variants(for: key).count == 1) }
        #expect(try await store.statistics().evictions == 3)
    }

    @Test func revalidationCountsAsUse() async throws {
        let store = try CacheStore.inMemory(maximumSize: Self.limit)
        let keys = ["a", "b", "c", "d"].map { StoreFixtures.key($0) }
        let a = try #require(try await StoreFixtures.put(store, keys[0], body: Data(count: 1000)))
        try await StoreFixtures.put(store, keys[1], body: Data(count: 1000))
        try await StoreFixtures.put(store, keys[2], body: Data(count: 1000))
        try await store.updateHeaders(of: a, headers: a.headers, requestTime: .now, responseTime: .now)
        try await StoreFixtures.put(store, keys[3], body: Data(count: 1000))
        #expect(try await store.variants(for: keys[0]).count == 1)
        #expect(try await store.variants(for: keys[1]).isEmpty)
    }

    @Test func oversizeEntryIsRefusedAndDropsTheOutdatedVariant() async throws {
        let store = try CacheStore.inMemory(maximumSize: 10_000)
        let small = StoreFixtures.key("small")
        let key = StoreFixtures.key("big")
        try await StoreFixtures.put(store, small, body: Data(count: 100))
        try await StoreFixtures.put(store, key, body: Data(count: 100))
        #expect(try await StoreFixtures.put(store, key, body: Data(count: 10_001)) == nil)
        #expect(try await store.variants(for: key).isEmpty)
        #expect(try await store.variants(for: small).count == 1)
        #expect(try await store.statistics().evictions == 0)
    }

    @Test(arguments: [0, -1])
    func nonPositiveLimitStoresNothing(limit: Int) async throws {
        let store = try CacheStore.inMemory(maximumSize: limit)
        #expect(try await StoreFixtures.put(store, StoreFixtures.key(), body: Data()) == nil)
        #expect(try await store.statistics().entryCount == 0)
    }
}
