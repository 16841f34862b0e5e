import Courier
@testable import CourierCache
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// What every `CacheStorage` does, run against each (see `StorageKind`): round trips, variants,
/// replacement, header updates, removal by scope, partitions, eviction by use, size limits, file
/// bodies, streamed slices and concurrent use. What only SQLite does (persistence, damage
/// recovery, several processes) is tested in `Store/`.
@Suite struct StorageConformanceTests {
    typealias Put = StoreFixtures

    @Test(arguments: StorageKind.allCases)
    func roundTripsBinaryBodiesAndMetadata(kind: StorageKind) async throws {
        try await kind.with { storage async throws in
            let body = StoreFixtures.randomBody(200_000)
            let key = StoreFixtures.key(partition: "alice")
            let stored = try #require(try await Put.put(storage, key, body: body))
            let variants = try await storage.variants(for: key)
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
            #expect(try await storage.body(of: entry) == body)
        }
    }

    @Test(arguments: StorageKind.allCases)
    func anEmptyBodyIsNotAMissingBody(kind: StorageKind) async throws {
        try await kind.with { storage async throws in
            let entry = try #require(try await Put.put(storage, StoreFixtures.key(), body: Data()))
            #expect(try await storage.body(of: entry) == Data())
            #expect(try await storage.lookup(StoreFixtures.key(), select: { $0.last })?.body == Data())
        }
    }

    @Test(arguments: StorageKind.allCases)
    func aLookupCarriesSmallBodiesOnlyAndSlicesStreamFromTheStorage(kind: StorageKind) async throws {
        try await kind.with { storage async throws in
            let small = StoreFixtures.key("small")
            let large = StoreFixtures.key("large")
            try await Put.put(storage, small, body: Data("tiny".utf8))
            let body = StoreFixtures.randomBody(700_000)
            try await Put.put(storage, large, body: body)
            #expect(try await storage.lookup(small, inlineBodyLimit: 10, select: { $0.last })?.body == Data("tiny".utf8))
            let found = try #require(try await storage.lookup(large, inlineBodyLimit: 10, select: { $0.last }))
            #expect(found.body == nil, "larger than the limit: read on demand")
            #expect(try await storage.body(of: found.metadata) == body)
            let slice = try #require(try await storage.body(of: found.metadata, offsets: 100_000..<600_000))
            #expect(try await Data(collecting: slice, upTo: .max) == body[100_000..<600_000])
            #expect(try await storage.body(of: found.metadata, offsets: 0..<700_001) == nil, "past the end")
        }
    }

    @Test(arguments: StorageKind.allCases)
    func variantsAreKeptPerVarySelection(kind: StorageKind) async throws {
        try await kind.with { storage async throws in
            let key = StoreFixtures.key()
            let english = VarySelection(names: ["Accept-Language"], values: ["accept-language": "en"])
            let french = VarySelection(names: ["Accept-Language"], values: ["accept-language": "fr"])
            let headers = RuleFixtures.fields([("Cache-Control", "max-age=60"), ("Vary", "Accept-Language")])
            try await Put.put(storage, key, body: Data("hello".utf8), vary: english, headers: headers)
            try await Put.put(storage, key, body: Data("bonjour".utf8), vary: french, headers: headers)
            let variants = try await storage.variants(for: key)
            #expect(variants.map(\.varySelection) == [english, french], "oldest first")
            let request = RuleFixtures.request([("Accept-Language", "fr")])
            let chosen = try #require(CacheRules().selectVariant(for: request, among: variants))
            #expect(try await storage.body(of: chosen) == Data("bonjour".utf8))
        }
    }

    @Test(arguments: StorageKind.allCases)
    func storingTheSameSelectionReplacesItUnderANewID(kind: StorageKind) async throws {
        try await kind.with { storage async throws in
            let key = StoreFixtures.key()
            let old = try #require(try await Put.put(storage, key, body: Data("old".utf8)))
            let new = try #require(try await Put.put(storage, key, body: Data("new".utf8)))
            #expect(try await storage.variants(for: key) == [new])
            #expect(old.id != new.id)
            #expect(try await storage.body(of: old) == nil, "a handle read before never reaches its successor's body")
            #expect(try await storage.body(of: new) == Data("new".utf8))
            #expect(try await storage.totals().entryCount == 1)
        }
    }

    @Test(arguments: StorageKind.allCases)
    func headersAreUpdatedAfterANotModified(kind: StorageKind) async throws {
        try await kind.with { storage async throws in
            let key = StoreFixtures.key()
            let entry = try #require(try await Put.put(storage, key, body: Data("body".utf8)))
            let merged = CacheRules().merge(stored: entry.headers, notModified: RuleFixtures.fields([("Cache-Control", "max-age=600")]))
            let later = StoreFixtures.t0.addingTimeInterval(1000)
            #expect(try await storage.updateHeaders(of: entry, headers: merged, requestTime: later, responseTime: later))
            let updated = try #require(try await storage.variants(for: key).first)
            #expect(updated.id == entry.id)
            #expect(updated.headers[values: .cacheControl] == ["max-age=600"])
            #expect(updated.headers[values: .setCookie] == ["a=1", "b=2"])
            #expect(updated.responseTime == later)
            #expect(try await storage.body(of: updated) == Data("body".utf8))
            #expect(try await storage.remove(entry))
            #expect(try await !storage.remove(entry))
            #expect(try await !storage.updateHeaders(of: entry, headers: merged, requestTime: later, responseTime: later))
        }
    }

    @Test(arguments: StorageKind.allCases)
    func partitionsAreIsolatedAUserWithANulByteToo(kind: StorageKind) async throws {
        try await kind.with { storage async throws in
            let user = { (identity: String) in StoreFixtures.key(partition: HTTPCache.partition(ofUser: identity)) }
            try await Put.put(storage, user("alice"), body: Data("alice".utf8))
            try await Put.put(storage, user("bob"), body: Data("bob".utf8))
            try await Put.put(storage, StoreFixtures.key(), body: Data("anonymous".utf8))
            let bobs = try #require(try await storage.variants(for: user("bob")).first)
            #expect(try await storage.body(of: bobs) == Data("bob".utf8))
            #expect(try await storage.variants(for: user("alice\0bob")).isEmpty)
            #expect(try await storage.removeAll(.partition(HTTPCache.partition(ofUser: "alice\0bob"))) == 0)
            #expect(try await storage.removeAll(.partition(HTTPCache.partition(ofUser: "alice"))) == 1)
            #expect(try await storage.variants(for: user("alice")).isEmpty)
            #expect(try await storage.variants(for: user("bob")).count == 1)
            #expect(try await storage.variants(for: StoreFixtures.key()).count == 1)
        }
    }

    @Test(arguments: StorageKind.allCases)
    func entriesListAPartitionOrAllOldestFirstWithoutBodies(kind: StorageKind) async throws {
        try await kind.with { storage async throws in
            let alice = HTTPCache.partition(ofUser: "alice")
            let first = try #require(try await Put.put(storage, StoreFixtures.key("a", partition: alice), body: Data("1".utf8)))
            let second = try #require(try await Put.put(storage, StoreFixtures.key("b"), body: Data("22".utf8)))
            let third = try #require(try await Put.put(storage, StoreFixtures.key("c", partition: alice), body: Data("333".utf8)))
            #expect(try await storage.entries(in: nil) == [first, second, third])
            #expect(try await storage.entries(in: alice) == [first, third])
            #expect(try await storage.entries(in: "") == [second])
            #expect(try await storage.entries(in: HTTPCache.partition(ofUser: "bob")).isEmpty)
            #expect(try await storage.remove(first))
            #expect(try await storage.entries(in: alice) == [third])
        }
    }

    @Test(arguments: StorageKind.allCases)
    func removalsTakeTheirScopeOnly(kind: StorageKind) async throws {
        try await kind.with { storage async throws in
            let get = StoreFixtures.key("a")
            let head = StoreFixtures.key("a", method: "HEAD")
            let bobs = StoreFixtures.key("a", partition: "bob")
            let other = StoreFixtures.key("b")
            for key in [get, head, bobs, other] { try await Put.put(storage, key, body: Data("x".utf8)) }
            #expect(try await storage.removeAll(.url(get.url, partition: "")) == 2, "every method of the URL, in its partition")
            #expect(try await storage.variants(for: bobs).count == 1)
            try await Put.put(storage, get, body: Data("x".utf8))
            #expect(try await storage.removeAll(.url(get.url, partition: nil)) == 2, "and in every partition")
            #expect(try await storage.variants(for: other).count == 1)
            #expect(try await storage.removeAll(.everything) == 1)
            #expect(try await storage.totals().entryCount == 0)
            #expect(try await storage.totals().totalBytes == 0)
        }
    }

    /// A removal under a prefix takes the prefix itself, with a query or a path after a `/`, in one
    /// partition or in all; never a sibling that only starts alike, and `%` or `_` in a URL match
    /// only themselves.
    @Test(arguments: StorageKind.allCases)
    func aRemovalUnderAPrefixTakesItsSubtreeOnly(kind: StorageKind) async throws {
        try await kind.with { storage async throws in
            let taken = ["users/1", "users/1?tab=posts", "users/1/friends?page=2", "users/1/"].map { StoreFixtures.key($0) }
            let kept = ["users/10", "users/1x", "users/2/1", "users", "users%2F1", "users_1"].map { StoreFixtures.key($0) }
            let bobs = StoreFixtures.key("users/1/photos", partition: "bob")
            for key in taken + kept + [bobs] { try await Put.put(storage, key, body: Data("x".utf8)) }
            let prefix = "https://api.example.com/users/1"
            #expect(try await storage.removeAll(.under(prefix, partition: "")) == taken.count, "its partition only")
            #expect(try await storage.variants(for: bobs).count == 1)
            for key in kept { #expect(try await storage.variants(for: key).count == 1, "\(key.url) stays") }
            #expect(try await storage.removeAll(.under(prefix, partition: nil)) == 1, "and in every partition")
            #expect(try await storage.removeAll(.under("https://api.example.com/users_", partition: nil)) == 0, "`_` is not a wildcard")
            #expect(try await storage.removeAll(.under("https://api.example.com/", partition: nil)) == kept.count, "a prefix ending in / takes all below it")
            #expect(try await storage.totals().entryCount == 0)
        }
    }

    /// Room for three 1000-byte bodies (plus metadata), not four.
    static let roomForThree = 3 * 1000 + 3 * 700

    @Test(arguments: StorageKind.allCases)
    func theLeastRecentlyUsedGoesFirstAndAUseChangesTheOrder(kind: StorageKind) async throws {
        try await kind.with(maximumSize: Self.roomForThree) { storage async throws in
            let keys = ["a", "b", "c", "d"].map { StoreFixtures.key($0) }
            let a = try #require(try await Put.put(storage, keys[0], body: Data(count: 1000)))
            try await Put.put(storage, keys[1], body: Data(count: 1000))
            try await Put.put(storage, keys[2], body: Data(count: 1000))
            // A use recorded long enough ago that the storage records this one.
            await storage.recordUse(of: a.used(at: .distantPast))
            let outcome = try await storage.store(Put.response(keys[3]), body: .bytes(Data(count: 1000)))
            #expect(outcome.evictedCount == 1)
            #expect(outcome.evictedBytes > 1000)
            #expect(try await storage.variants(for: keys[0]).count == 1)
            #expect(try await storage.variants(for: keys[1]).isEmpty)
            #expect(try await storage.variants(for: keys[2]).count == 1)
            #expect(try await storage.variants(for: keys[3]).count == 1)
            #expect(try await storage.totals().totalBytes <= Self.roomForThree)
        }
    }

    @Test(arguments: StorageKind.allCases)
    func withoutUsesTheOldestGoFirst(kind: StorageKind) async throws {
        try await kind.with(maximumSize: Self.roomForThree) { storage async throws in
            let keys = (0..<6).map { StoreFixtures.key("item\($0)") }
            var evicted = 0
            for key in keys { evicted += try await storage.store(Put.response(key), body: .bytes(Data(count: 1000))).evictedCount }
            for key in keys.prefix(3) { #expect(try await storage.variants(for: key).isEmpty) }
            for key in keys.suffix(3) { #expect(try await storage.variants(for: key).count == 1) }
            #expect(evicted == 3)
            #expect(try await storage.totals().entryCount == 3)
        }
    }

    @Test(arguments: StorageKind.allCases)
    func aRevalidationCountsAsAUse(kind: StorageKind) async throws {
        try await kind.with(maximumSize: Self.roomForThree) { storage async throws in
            let keys = ["a", "b", "c", "d"].map { StoreFixtures.key($0) }
            let a = try #require(try await Put.put(storage, keys[0], body: Data(count: 1000)))
            try await Put.put(storage, keys[1], body: Data(count: 1000))
            try await Put.put(storage, keys[2], body: Data(count: 1000))
            _ = try await storage.updateHeaders(of: a, headers: a.headers, requestTime: .now, responseTime: .now)
            try await Put.put(storage, keys[3], body: Data(count: 1000))
            #expect(try await storage.variants(for: keys[0]).count == 1)
            #expect(try await storage.variants(for: keys[1]).isEmpty)
        }
    }

    @Test(arguments: StorageKind.allCases)
    func aResponseTooLargeIsRefusedAndDropsTheVariantItWouldReplace(kind: StorageKind) async throws {
        try await kind.with(maximumSize: 10_000) { storage async throws in
            let small = StoreFixtures.key("small")
            let key = StoreFixtures.key("big")
            try await Put.put(storage, small, body: Data(count: 100))
            try await Put.put(storage, key, body: Data(count: 100))
            let outcome = try await storage.store(Put.response(key), body: .bytes(Data(count: 10_001)))
            #expect(outcome.stored == nil)
            #expect(outcome.evictedCount == 0)
            #expect(try await storage.variants(for: key).isEmpty)
            #expect(try await storage.variants(for: small).count == 1)
        }
    }

    @Test(arguments: StorageKind.allCases.flatMap { kind in [0, -1].map { (kind, $0) } })
    func aLimitOfNothingStoresNothing(kind: StorageKind, limit: Int) async throws {
        try await kind.with(maximumSize: limit) { storage async throws in
            #expect(try await Put.put(storage, StoreFixtures.key(), body: Data()) == nil)
            #expect(try await storage.totals().entryCount == 0)
        }
    }

    @Test(arguments: StorageKind.allCases)
    func aBodyFromAFileIsStoredAndAFileThatChangesStoresNothing(kind: StorageKind) async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            try await kind.with { storage async throws in
                let body = StoreFixtures.randomBody(300_000)
                let file = directory.appendingPathComponent("download.bin")
                try body.write(to: file)
                let stored = try #require(try await storage.store(Put.response(StoreFixtures.key()), body: .file(file)).stored)
                #expect(stored.bodySize == body.count)
                #expect(try await storage.body(of: stored) == body)
                // Opened at one size, cut before the storage reads it: a torn body is never stored.
                let changing = StoreFixtures.key("changing")
                let opened = try CacheBody.file(file)
                try body.prefix(1000).write(to: file)
                let error = await #expect(throws: CourierError.self) { try await storage.store(Put.response(changing), body: opened) }
                #expect(error?.kind == .file)
                #expect(try await storage.variants(for: changing).isEmpty)
                #expect(try await storage.totals().entryCount == 1)
                #expect(throws: CourierError.self) { try CacheBody.file(directory.appendingPathComponent("gone.bin")) }
            }
        }
    }

    @Test(arguments: StorageKind.allCases)
    func manyTasksStoreAndReadAtOnce(kind: StorageKind) async throws {
        try await kind.with { storage async throws in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<64 {
                    group.addTask {
                        let key = StoreFixtures.key("item\(index % 16)", partition: "p\(index % 3)")
                        let stored = try #require(try await Put.put(storage, key, body: Data("body-\(index)".utf8)))
                        await storage.recordUse(of: stored.used(at: .distantPast))
                        for variant in try await storage.variants(for: key) {
                            // This task's body or one that replaced it; never a torn read.
                            if let read = try await storage.body(of: variant) { #expect(read.starts(with: Data("body-".utf8))) }
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await storage.totals().entryCount == 48)
        }
    }
}
