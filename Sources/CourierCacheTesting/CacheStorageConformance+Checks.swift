import Courier
import CourierCache
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Each check's run, and the checks of what a storage keeps: round trips, variants, updates,
/// partitions and clear marks, listings and removals.
extension CacheStorageConformance {
    /// Room for three 1000-byte bodies (plus their metadata), not four.
    static let roomForThree = 3 * 1000 + 3 * 700

    func run(_ check: Check, recording r: Recorder) async throws {
        switch check {
        case .roundTrip: try await with { try await roundTrip($0, r) }
        case .emptyBody: try await with { try await emptyBody($0, r) }
        case .inlineBodiesAndSlices: try await with { try await inlineBodiesAndSlices($0, r) }
        case .variants: try await with { try await variants($0, r) }
        case .replacement: try await with { try await replacement($0, r) }
        case .headerUpdate: try await with { try await headerUpdate($0, r) }
        case .partitions: try await with { try await partitions($0, r) }
        case .clearMarks: try await with { try await clearMarks($0, r) }
        case .flights: try await with { try await flights($0, r) }
        case .listing: try await with { try await listing($0, r) }
        case .removalScopes: try await with { try await removalScopes($0, r) }
        case .removalUnderAPrefix: try await with { try await removalUnderAPrefix($0, r) }
        case .leastRecentlyUsedEviction: try await with(maximumSize: Self.roomForThree) { try await leastRecentlyUsed($0, r) }
        case .oldestFirstEviction: try await with(maximumSize: Self.roomForThree) { try await oldestFirst($0, r) }
        case .revalidationIsAUse: try await with(maximumSize: Self.roomForThree) { try await revalidationIsAUse($0, r) }
        case .tooLarge: try await with(maximumSize: 10_000) { try await tooLarge($0, r) }
        case .noRoom:
            for limit in [0, -1] { try await with(maximumSize: limit) { try await noRoom($0, limit: limit, r) } }
        case .fileBodies: try await with { try await fileBodies($0, r) }
        case .concurrentUse: try await with { try await concurrentUse($0, r) }
        }
    }

    private func with(maximumSize: Int = 10_000_000, _ body: (any CacheStorage) async throws -> Void) async throws {
        try await storages(maximumSize, body)
    }

    private func roundTrip(_ storage: any CacheStorage, _ r: Recorder) async throws {
        let body = Fixtures.body(200_000)
        let key = Fixtures.key(partition: "alice")
        let stored = try r.require(try await Fixtures.put(storage, key, body: body), "a 200,000-byte body under a 10 MB limit was not stored")
        let variants = try await storage.variants(of: key)
        let variant = try r.require(variants.first, "nothing found for the key just stored")
        r.expect(variants.count, equals: 1, "variants of a key stored once")
        r.expect(variant, equals: stored, "the variant read back against the one `store` returned")
        r.expect(variant.key, equals: key, "the key")
        r.expect(variant.status, equals: 200, "the status")
        r.expect(variant.headers, equals: Fixtures.headers, "the header fields, in order, duplicates kept")
        r.expect(variant.headers[values: .setCookie], equals: ["a=1", "b=2"], "a repeated field")
        r.expect(variant.requestTime, equals: Fixtures.t0, "the request time")
        r.expect(variant.responseTime, equals: Fixtures.t0.addingTimeInterval(0.5), "the response time")
        r.expect(variant.bodySize, equals: body.count, "the body size")
        r.expect(try await storage.wholeBody(of: variant) == body, "the body read back differs from the one stored (every byte value, NULs too)")
    }

    private func emptyBody(_ storage: any CacheStorage, _ r: Recorder) async throws {
        let variant = try r.require(try await Fixtures.put(storage, Fixtures.key(), body: Data()), "an empty body was not stored")
        r.expect(try await storage.wholeBody(of: variant), equals: Data(), "the body of an empty response")
        let inline = try await storage.variants(of: Fixtures.key(), inlineBodyLimit: 64 << 10).last?.body
        r.expect(inline, equals: Data(), "an empty body brought along by a lookup (nil means \"read it on demand\")")
    }

    private func inlineBodiesAndSlices(_ storage: any CacheStorage, _ r: Recorder) async throws {
        let small = Fixtures.key("small")
        let large = Fixtures.key("large")
        try await Fixtures.put(storage, small, body: Data("tiny".utf8))
        let body = Fixtures.body(700_000)
        try await Fixtures.put(storage, large, body: body)
        let tiny = try await storage.variants(of: small, inlineBodyLimit: 10).last?.body
        r.expect(tiny, equals: Data("tiny".utf8), "a 4-byte body under an inline limit of 10")
        let found = try r.require(try await storage.variants(of: large, inlineBodyLimit: 10).last, "the large body's variant is missing")
        r.expect(found.body == nil, "a 700,000-byte body came along with a lookup whose inline limit is 10")
        r.expect(try await storage.wholeBody(of: found.metadata) == body, "the large body read on demand differs")
        let slice = try r.require(
            try await storage.body(of: found.metadata, offsets: 100_000..<600_000), "a slice inside the body read nothing")
        r.expect(try await Data(collecting: slice, upTo: .max) == body[100_000..<600_000], "the slice 100,000..<600,000 differs")
        r.expect(try await storage.body(of: found.metadata, offsets: 0..<700_001) == nil, "a range past the body's end read something")
    }

    private func variants(_ storage: any CacheStorage, _ r: Recorder) async throws {
        let key = Fixtures.key()
        let english = VarySelection(names: ["accept-language"], values: ["accept-language": "en"])
        let french = VarySelection(names: ["accept-language"], values: ["accept-language": "fr"])
        let headers = Fixtures.fields([("Cache-Control", "max-age=60"), ("Vary", "Accept-Language")])
        try await Fixtures.put(storage, key, body: Data("hello".utf8), vary: english, headers: headers)
        try await Fixtures.put(storage, key, body: Data("bonjour".utf8), vary: french, headers: headers)
        let variants = try await storage.variants(of: key)
        r.expect(variants.map(\.varySelection), equals: [english, french], "the vary selections, oldest first")
        let chosen = try r.require(variants.last { $0.varySelection == french }, "the French variant is missing")
        r.expect(try await storage.wholeBody(of: chosen), equals: Data("bonjour".utf8), "the French variant's body")
    }

    private func replacement(_ storage: any CacheStorage, _ r: Recorder) async throws {
        let key = Fixtures.key()
        let old = try r.require(try await Fixtures.put(storage, key, body: Data("old".utf8)), "the first body was not stored")
        let new = try r.require(try await Fixtures.put(storage, key, body: Data("new".utf8)), "the second body was not stored")
        r.expect(try await storage.variants(of: key), equals: [new], "the variants after a replacement")
        r.expect(old.id != new.id, "a replaced variant kept its id \(old.id): a handle read before could reach its successor's body")
        r.expect(try await storage.wholeBody(of: old) == nil, "the replaced variant's id still reads a body")
        r.expect(try await storage.wholeBody(of: new), equals: Data("new".utf8), "the new body")
        r.expect(try await storage.totals().count, equals: 1, "the variant count after a replacement")
    }

    private func headerUpdate(_ storage: any CacheStorage, _ r: Recorder) async throws {
        let key = Fixtures.key()
        let variant = try r.require(try await Fixtures.put(storage, key, body: Data("body".utf8)), "the body was not stored")
        var merged = variant.headers
        merged[values: .cacheControl] = ["max-age=600"]
        let later = Fixtures.t0.addingTimeInterval(1000)
        r.expect(try await storage.updateHeaders(of: variant, headers: merged, requestTime: later, responseTime: later),
                 "updating a stored variant's headers answered false")
        let updated = try r.require(try await storage.variants(of: key).first, "the variant is gone after a header update")
        r.expect(updated.id, equals: variant.id, "the id after a header update")
        r.expect(updated.headers[values: .cacheControl], equals: ["max-age=600"], "Cache-Control after the update")
        r.expect(updated.headers[values: .setCookie], equals: ["a=1", "b=2"], "the fields the update kept")
        r.expect(updated.responseTime, equals: later, "the response time after the update")
        r.expect(try await storage.wholeBody(of: updated), equals: Data("body".utf8), "the body after a header update")
        r.expect(try await storage.remove(variant), "removing a stored variant answered false")
        r.expect(try await !storage.remove(variant), "removing it again answered true")
        r.expect(try await !storage.updateHeaders(of: variant, headers: merged, requestTime: later, responseTime: later),
                 "updating a removed variant answered true")
    }

    private func partitions(_ storage: any CacheStorage, _ r: Recorder) async throws {
        // Names as `HTTPCache` makes them for users `alice`, `bob` and `alice<NUL>bob` (NUL escaped).
        let alice = "id:alice", bob = "id:bob", lookalike = "id:alice%00bob"
        try await Fixtures.put(storage, Fixtures.key(partition: alice), body: Data("alice".utf8))
        try await Fixtures.put(storage, Fixtures.key(partition: bob), body: Data("bob".utf8))
        try await Fixtures.put(storage, Fixtures.key(), body: Data("anonymous".utf8))
        let bobs = try r.require(try await storage.variants(of: Fixtures.key(partition: bob)).first, "bob's variant is missing")
        r.expect(try await storage.wholeBody(of: bobs), equals: Data("bob".utf8), "bob's body")
        r.expect(try await storage.variants(of: Fixtures.key(partition: lookalike)).isEmpty, "a partition that starts like alice's found her variant")
        r.expect(try await storage.removeAll(.partition(lookalike)), equals: 0, "removals in a partition that starts like alice's")
        r.expect(try await storage.removeAll(.partition(alice)), equals: 1, "removals in alice's partition")
        r.expect(try await storage.variants(of: Fixtures.key(partition: alice)).isEmpty, "alice's variant after her partition was cleared")
        r.expect(try await storage.variants(of: Fixtures.key(partition: bob)).count, equals: 1, "bob's variants after alice's clear")
        r.expect(try await storage.variants(of: Fixtures.key()).count, equals: 1, "the anonymous variants after alice's clear")
    }

    private func clearMarks(_ storage: any CacheStorage, _ r: Recorder) async throws {
        let alice = "id:alice", bob = "id:bob"
        let key = Fixtures.key(partition: alice)
        try await Fixtures.put(storage, key, body: Data("alice".utf8))
        let found = try await storage.lookup(key, inlineBodyLimit: 1_000)
        r.expect(found.variants, equals: try await storage.variants(of: key, inlineBodyLimit: 1_000), "a lookup's variants")
        let before = try await storage.clearMark(of: alice)
        r.expect(found.clearMark, equals: before, "a lookup's mark and the partition's")
        guard let before else { return }  // a storage of one process: HTTPCache orders clears and stores
        let miss = try await storage.lookup(Fixtures.key("elsewhere", partition: alice), inlineBodyLimit: 0)
        r.expect(miss.clearMark, equals: before, "a missed lookup's mark")
        let bobs = try await storage.clearMark(of: bob)
        _ = try await storage.removeAll(.partition(alice))
        let after = try r.require(try await storage.clearMark(of: alice), "no mark after a clear")
        r.expect(after.generation > before.generation, "the mark after a clear (\(after.generation)) is above the one before (\(before.generation))")
        r.expect(try await storage.clearMark(of: bob), equals: bobs, "another partition's mark after alice's clear")
        var response = Fixtures.response(key)
        response.clearMark = before
        r.expect(try await storage.store(response, body: .bytes(Data("late".utf8))).stored == nil, "a store with the mark from before the clear was stored")
        response.clearMark = nil
        r.expect(try await storage.store(response, body: .bytes(Data("late".utf8))).stored == nil, "a store without a mark was stored after a clear")
        r.expect(try await storage.variants(of: key, inlineBodyLimit: 0).isEmpty, "alice's variants after stores that lost to her clear")
        response.clearMark = after
        r.expect(try await storage.store(response, body: .bytes(Data("new".utf8))).stored != nil, "a store with the mark from after the clear was refused")
    }

    private func listing(_ storage: any CacheStorage, _ r: Recorder) async throws {
        let alice = "id:alice"
        let first = try r.require(try await Fixtures.put(storage, Fixtures.key("a", partition: alice), body: Data("1".utf8)), "not stored")
        let second = try r.require(try await Fixtures.put(storage, Fixtures.key("b"), body: Data("22".utf8)), "not stored")
        let third = try r.require(try await Fixtures.put(storage, Fixtures.key("c", partition: alice), body: Data("333".utf8)), "not stored")
        r.expect(try await storage.variants(in: nil), equals: [first, second, third], "every variant, oldest first")
        r.expect(try await storage.variants(in: alice), equals: [first, third], "alice's entries, oldest first")
        r.expect(try await storage.variants(in: ""), equals: [second], "the anonymous entries")
        r.expect(try await storage.variants(in: "id:bob").isEmpty, "an empty partition listed entries")
        r.expect(try await storage.remove(first), "removing alice's first variant answered false")
        r.expect(try await storage.variants(in: alice), equals: [third], "alice's variants after a removal")
    }

    private func removalScopes(_ storage: any CacheStorage, _ r: Recorder) async throws {
        let get = Fixtures.key("a")
        let head = Fixtures.key("a", method: "HEAD")
        let bobs = Fixtures.key("a", partition: "bob")
        let other = Fixtures.key("b")
        for key in [get, head, bobs, other] { try await Fixtures.put(storage, key, body: Data("x".utf8)) }
        r.expect(try await storage.removeAll(.url(get.url, partition: "")), equals: 2, "removals of a URL, every method, in its partition")
        r.expect(try await storage.variants(of: bobs).count, equals: 1, "another partition's variant of the URL")
        try await Fixtures.put(storage, get, body: Data("x".utf8))
        r.expect(try await storage.removeAll(.url(get.url, partition: nil)), equals: 2, "removals of a URL in every partition")
        r.expect(try await storage.variants(of: other).count, equals: 1, "another URL's variant")
        r.expect(try await storage.removeAll(.everything), equals: 1, "removals of everything")
        r.expect(try await storage.totals(), equals: CacheTotals(), "the totals of an empty storage")
    }

    private func removalUnderAPrefix(_ storage: any CacheStorage, _ r: Recorder) async throws {
        let taken = ["users/1", "users/1?tab=posts", "users/1/friends?page=2", "users/1/"].map { Fixtures.key($0) }
        let kept = ["users/10", "users/1x", "users/2/1", "users", "users%2F1", "users_1"].map { Fixtures.key($0) }
        let bobs = Fixtures.key("users/1/photos", partition: "bob")
        for key in taken + kept + [bobs] { try await Fixtures.put(storage, key, body: Data("x".utf8)) }
        let prefix = "https://api.example.com/users/1"
        r.expect(try await storage.removeAll(.under(prefix, partition: "")), equals: taken.count, "removals under \(prefix) in one partition")
        r.expect(try await storage.variants(of: bobs).count, equals: 1, "another partition's variant under the prefix")
        for key in kept { r.expect(try await storage.variants(of: key).count, equals: 1, "variants of \(key.url), beside the prefix") }
        r.expect(try await storage.removeAll(.under(prefix, partition: nil)), equals: 1, "removals under the prefix in every partition")
        r.expect(try await storage.removeAll(.under("https://api.example.com/users_", partition: nil)), equals: 0,
                 "removals under a prefix ending in `_` (not a wildcard)")
        r.expect(try await storage.removeAll(.under("https://api.example.com/", partition: nil)), equals: kept.count,
                 "removals under a prefix ending in /")
        r.expect(try await storage.totals().count, equals: 0, "the variant count at the end")
    }
}
