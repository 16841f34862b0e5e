import CourierCache
import Foundation
import Testing

@Suite struct HotEntriesTests {
    private func lookup(_ store: CacheStore, _ key: CacheKey) async throws -> Data? {
        try await store.lookup(key) { $0.first }?.body
    }

    @Test func ownWritesAreSeenAtOnceAndOtherStoresWithinASecond() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("cache.sqlite")
            let mine = try CacheStore(fileURL: file, maximumSize: 1 << 20)
            let theirs = try CacheStore(fileURL: file, maximumSize: 1 << 20)
            let key = StoreFixtures.key()
            try await StoreFixtures.put(mine, key, body: Data("v1".utf8))
            #expect(try await lookup(mine, key) == Data("v1".utf8))

            try await StoreFixtures.put(mine, key, body: Data("v2".utf8))
            #expect(try await lookup(mine, key) == Data("v2".utf8))

            try await StoreFixtures.put(theirs, key, body: Data("v3".utf8))
            try await Task.sleep(for: .milliseconds(1100))
            #expect(try await lookup(mine, key) == Data("v3".utf8))

            _ = try await mine.remove(key)
            #expect(try await lookup(mine, key) == nil)
        }
    }
}
