import CourierCache
import Foundation
import HTTPTypes
import Testing

@Suite struct CacheStoreTests {
    @Test func roundTripsBinaryBodiesAndMetadata() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let store = try CacheStore(fileURL: directory.appendingPathComponent("cache.sqlite"), maximumSize: 10_000_000)
            let body = StoreFixtures.randomBody(200_000)
            let key = StoreFixtures.key(partition: "alice")
            let stored = try #require(try await StoreFixtures.put(store, key, body: body))
            let variants = try await store.variants(for: key)
            let entry = try #require(variants.first)
            #expect(variants.count == 1)
            #expect(entry == stored)
            #expect(entry.key == key)
            #expect(entry.status == 200)
            #expect(entry.headers == StoreFixtures.headers)
            #expect(entry.headers[values: .setCookie] == ["a=1", "b=2"])
            #expect(entry.requestTime == StoreFixtures.t0)
            #expect(entry.responseTime == StoreFixtures.t0.addingTimeInterval(0.5))
            #expect(entry.bodySize == body.count)
            #expect(try await store.body(for: entry) == body)
        }
    }

    @Test func emptyBodyIsNotMissingBody() async throws {
        let store = try CacheStore.inMemory(maximumSize: 1_000_000)
        let entry = try #require(try await StoreFixtures.put(store, StoreFixtures.key(), body: Data()))
        #expect(try await store.body(for: entry) == Data())
    }

    @Test func variantsAreKeptPerVarySelection() async throws {
        let store = try CacheStore.inMemory(maximumSize: 1_000_000)
        let key = StoreFixtures.key()
        let english = VarySelection(names: ["Accept-Language"], values: ["accept-language": "en"])
        let french = VarySelection(names: ["Accept-Language"], values: ["accept-language": "fr"])
        let headers = RuleFixtures.fields([("Cache-Control", "max-age=60"), ("Vary", "Accept-Language")])
        try await StoreFixtures.put(store, key, body: Data("hello".utf8), vary: english, headers: headers)
        try await StoreFixtures.put(store, key, body: Data("bonjour".utf8), vary: french, headers: headers)
        let variants = try await store.variants(for: key)
        #expect(variants.count == 2)
        let request = RuleFixtures.request([("Accept-Language", "fr")])
        let chosen = try #require(CacheRules().selectVariant(for: request, among: variants))
        #expect(try await store.body(for: chosen) == Data("bonjour".utf8))
    }

    @Test func storingTheSameSelectionReplacesIt() async throws {
        let store = try CacheStore.inMemory(maximumSize: 1_000_000)
        let key = StoreFixtures.key()
        let old = try #require(try await StoreFixtures.put(store, key, body: Data("old".utf8)))
        let new = try #require(try await StoreFixtures.put(store, key, body: Data("new".utf8)))
        #expect(try await store.variants(for: key) == [new])
        #expect(old.id != new.id)
        #expect(try await store.body(for: old) == nil)
        #expect(try await store.body(for: new) == Data("new".utf8))
        #expect(try await store.statistics().entryCount == 1)
    }

    @Test func updateHeadersAfterNotModified() async throws {
        let store = try CacheStore.inMemory(maximumSize: 1_000_000)
        let key = StoreFixtures.key()
        let entry = try #require(try await StoreFixtures.put(store, key, body: Data("body".utf8)))
        let merged = CacheRules().merge(
            stored: entry.headers, notModified: RuleFixtures.fields([("Cache-Control", "max-age=600")]))
        let later = StoreFixtures.t0.addingTimeInterval(1000)
        #expect(try await store.updateHeaders(of: entry, headers: merged, requestTime: later, responseTime: later))
        let updated = try #require(try await store.variants(for: key).first)
        #expect(updated.id == entry.id)
        #expect(updated.headers[values: .cacheControl] == ["max-age=600"])
        #expect(updated.headers[values: .setCookie] == ["a=1", "b=2"])
        #expect(updated.responseTime == later)
        #expect(try await store.body(for: updated) == Data("body".utf8))
        try await store.remove(key)
        #expect(try await !store.updateHeaders(of: entry, headers: merged, requestTime: later, responseTime: later))
    }

    @Test func rejectsInvalidStatus() async throws {
        let store = try CacheStore.inMemory(maximumSize: 1_000_000)
        await #expect(throws: CacheStoreError.invalidStatus(1000)) {
            try await store.store(
                key: StoreFixtures.key(), varySelection: .none, status: 1000, headers: [:], body: Data(),
                requestTime: StoreFixtures.t0, responseTime: StoreFixtures.t0)
        }
    }

    @Test func partitionsAreIsolated() async throws {
        let store = try CacheStore.inMemory(maximumSize: 1_000_000)
        let alice = StoreFixtures.key(partition: "alice")
        let bob = StoreFixtures.key(partition: "bob")
        let anonymous = StoreFixtures.key()
        try await StoreFixtures.put(store, alice, body: Data("alice".utf8))
        try await StoreFixtures.put(store, bob, body: Data("bob".utf8))
        try await StoreFixtures.put(store, anonymous, body: Data("anon".utf8))
        let bobsEntry = try #require(try await store.variants(for: bob).first)
        #expect(try await store.body(for: bobsEntry) == Data("bob".utf8))
        #expect(try await store.removeAll(partition: "alice") == 1)
        #expect(try await store.variants(for: alice).isEmpty)
        #expect(try await store.variants(for: bob).count == 1)
        #expect(try await store.variants(for: anonymous).count == 1)
    }

    @Test func removeByKeyURLAndClear() async throws {
        let store = try CacheStore.inMemory(maximumSize: 1_000_000)
        let get = StoreFixtures.key("a")
        let options = StoreFixtures.key("a", method: "OPTIONS")
        let other = StoreFixtures.key("b")
        for key in [get, options, other] { try await StoreFixtures.put(store, key, body: Data("x".utf8)) }
        #expect(try await store.remove(get) == 1)
        try await StoreFixtures.put(store, get, body: Data("x".utf8))
        let url = try #require(URL(string: "HTTPS://api.example.com:443/a"))
        #expect(try await store.variants(url: url, partition: "").count == 2)
        #expect(try await store.remove(url: url, partition: "") == 2)
        #expect(try await store.variants(for: other).count == 1)
        #expect(try await store.clear() == 1)
        #expect(try await store.statistics().entryCount == 0)
        #expect(try await store.statistics().totalBytes == 0)
    }

    @Test func statisticsCountHitsMissesAndSize() async throws {
        let store = try CacheStore.inMemory(maximumSize: 1_000_000)
        store.recordHit()
        store.recordHit()
        store.recordMiss()
        try await StoreFixtures.put(store, StoreFixtures.key(), body: Data(count: 1000))
        let statistics = try await store.statistics()
        #expect(statistics.hits == 2)
        #expect(statistics.misses == 1)
        #expect(statistics.entryCount == 1)
        #expect(statistics.totalBytes > 1000)
        #expect(statistics.hitRatio == 2.0 / 3.0)
    }

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
            #expect(try await reopened.body(for: entry) == body)
        }
    }
}
