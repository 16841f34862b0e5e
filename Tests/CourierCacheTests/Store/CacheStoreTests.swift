@testable import CourierCache
import Foundation
import GRDB
import HTTPTypes
import Testing

/// What the SQLite store does beyond every storage (see `StorageConformanceTests`): it persists,
/// and a hit on a variant used within the last minute writes nothing.
@Suite struct CacheStoreTests {
    @Test func persistsAcrossInstances() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("nested/dir/cache.sqlite")
            let body = StoreFixtures.randomBody(10_000)
            do {
                let store = try SQLiteCacheStorage(fileURL: file, maximumSize: 1_000_000)
                try await StoreFixtures.put(store, StoreFixtures.key(), body: body)
            }
            let reopened = try SQLiteCacheStorage(fileURL: file, maximumSize: 1_000_000)
            let entry = try #require(try await reopened.variants(for: StoreFixtures.key()).first)
            #expect(try await reopened.body(of: entry) == body)
        }
    }

    @Test func aHitOnAVariantUsedWithinTheMinuteWritesNothing() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("cache.sqlite")
            let store = try SQLiteCacheStorage(fileURL: file, maximumSize: 1 << 20)
            let stored = try #require(try await StoreFixtures.put(store, StoreFixtures.key("a"), body: Data("a".utf8)))
            let order = { try await DatabaseQueue(path: file.path).read { db in try Int.fetchOne(db, sql: "SELECT accessOrder FROM entry") } }
            let before = try await order()
            await store.recordUse(of: stored)
            #expect(try await order() == before, "stored just now: no write")
            await store.recordUse(of: stored.used(at: stored.lastAccess.addingTimeInterval(-2 * SQLiteCacheStorage.useGranularity)))
            #expect(try await order() != before)
            #expect(try await store.variants(for: stored.key).first?.lastAccess ?? .distantPast > stored.lastAccess)
        }
    }

    /// SQLite's texts end at a NUL as GRDB binds them: a key holding one is never stored, so it can
    /// neither read nor clear the variants of the key it would be cut to.
    @Test func aKeyHoldingANULIsNotStoredAndReachesNoOtherKey() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let store = try SQLiteCacheStorage(fileURL: directory.appendingPathComponent("cache.sqlite"), maximumSize: 1 << 20)
            let alice = StoreFixtures.key(partition: "alice")
            let stored = try #require(try await StoreFixtures.put(store, alice, body: Data("alice's".utf8)))
            let keys = [
                StoreFixtures.key(partition: "alice\0mallory"),
                CacheKey(method: "GET", normalizedURL: alice.url + "\0x", partition: "alice"),
                CacheKey(method: "GET\0", normalizedURL: alice.url, partition: "alice"),
            ]
            for key in keys {
                let outcome = try await store.store(StoreFixtures.response(key), body: .bytes(Data("mallory's".utf8)))
                #expect(outcome.stored == nil, "stored under \(String(reflecting: key))")
                #expect(try await store.variants(for: key).isEmpty)
                // Alice's variant under the key cut short: what a NUL-ended binding would reach.
                let forged = VariantMetadata(
                    id: stored.id, key: key, varySelection: .none, status: 200, headers: stored.headers, requestTime: .now,
                    responseTime: .now, bodySize: 7, storedAt: .now, lastAccess: .now)
                #expect(try await store.remove(forged) == false)
                #expect(try await store.updateHeaders(of: forged, headers: [:], requestTime: .now, responseTime: .now) == false)
            }
            let vary = VarySelection(names: ["accept"], values: ["accept": "a\0b"])
            #expect(try await store.store(StoreFixtures.response(alice, vary: vary), body: .bytes(Data("x".utf8))).stored == nil)
            for scope: CacheScope in [
                .partition("alice\0mallory"), .url(alice.url, partition: "alice\0mallory"), .url(alice.url + "\0x", partition: nil),
                .under(alice.url + "\0", partition: "alice"), .under(alice.url, partition: "alice\0"),
            ] {
                #expect(try await store.removeAll(scope) == 0, "removed by \(scope)")
            }
            let kept = try #require(try await store.variants(for: alice).first)
            #expect(kept.id == stored.id && kept.headers == stored.headers)
            #expect(try await store.body(of: kept) == Data("alice's".utf8))
            #expect(try await store.totals().count == 1)
        }
    }
}
