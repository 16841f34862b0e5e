import Courier
import CourierCache
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// The checks of a storage at its limits: eviction, too large a response, no room, bodies from files
/// that change, many tasks at once.
extension CacheStorageConformance {
    func leastRecentlyUsed(_ storage: any CacheStorage, _ r: Recorder) async throws {
        let (keys, a) = try await fillToTheLimit(storage, r)
        // A use recorded long enough ago that the storage records this one.
        await storage.recordUse(of: Fixtures.used(a, at: .distantPast))
        let outcome = try await storage.store(Fixtures.response(keys[3]), body: .bytes(Data(count: 1000)))
        r.expect(outcome.evictedCount, equals: 1, "variants evicted to make room for a fourth")
        r.expect(outcome.evictedBytes > 1000, "evicted bytes \(outcome.evictedBytes) leave out the evicted variant's metadata")
        r.expect(try await storage.variants(of: keys[0]).count, equals: 1, "the oldest variant, used since, after an eviction")
        r.expect(try await storage.variants(of: keys[1]).isEmpty, "the least recently used variant survived the eviction")
        r.expect(try await storage.variants(of: keys[2]).count, equals: 1, "the third variant after the eviction")
        r.expect(try await storage.variants(of: keys[3]).count, equals: 1, "the new variant after the eviction")
        let total = try await storage.totals().totalBytes
        r.expect(total <= Self.roomForThree, "total bytes \(total) over the limit \(Self.roomForThree)")
    }

    /// Stores three 1000-byte bodies under `a`, `b` and `c`, which fill ``roomForThree``; the keys
    /// (`d` fourth, not stored) and the first variant.
    func fillToTheLimit(_ storage: any CacheStorage, _ r: Recorder) async throws -> (keys: [CacheKey], first: VariantMetadata) {
        let keys = ["a", "b", "c", "d"].map { Fixtures.key($0) }
        let first = try r.require(try await Fixtures.put(storage, keys[0], body: Data(count: 1000)), "the first body was not stored")
        try await Fixtures.put(storage, keys[1], body: Data(count: 1000))
        try await Fixtures.put(storage, keys[2], body: Data(count: 1000))
        return (keys, first)
    }

    func oldestFirst(_ storage: any CacheStorage, _ r: Recorder) async throws {
        let keys = (0..<6).map { Fixtures.key("item\($0)") }
        var evicted = 0
        for key in keys { evicted += try await storage.store(Fixtures.response(key), body: .bytes(Data(count: 1000))).evictedCount }
        for key in keys.prefix(3) { r.expect(try await storage.variants(of: key).isEmpty, "\(key.url), among the oldest, survived") }
        for key in keys.suffix(3) { r.expect(try await storage.variants(of: key).count, equals: 1, "variants of \(key.url), among the newest") }
        r.expect(evicted, equals: 3, "variants evicted storing six where three fit")
        r.expect(try await storage.totals().count, equals: 3, "the variant count")
        // A response the size of two and a half takes the room of the two oldest at once.
        let large = Fixtures.key("large")
        let outcome = try await storage.store(Fixtures.response(large), body: .bytes(Data(count: 2500)))
        r.expect(outcome.evictedCount, equals: 2, "variants evicted at once for a body of 2,500 bytes")
        for key in keys[3...4] { r.expect(try await storage.variants(of: key).isEmpty, "\(key.url), among the oldest, survived a larger store") }
        r.expect(try await storage.variants(of: keys[5]).count, equals: 1, "variants of the newest after a larger store")
        r.expect(try await storage.variants(of: large).count, equals: 1, "variants of the larger response")
        let totals = try await storage.totals()
        r.expect(totals.count, equals: 2, "the variant count after a larger store")
        r.expect(totals.totalBytes <= Self.roomForThree, "total bytes \(totals.totalBytes) over the limit \(Self.roomForThree)")
    }

    func revalidationIsAUse(_ storage: any CacheStorage, _ r: Recorder) async throws {
        let (keys, a) = try await fillToTheLimit(storage, r)
        _ = try await storage.updateHeaders(of: a, headers: a.headers, requestTime: .now, responseTime: .now)
        try await Fixtures.put(storage, keys[3], body: Data(count: 1000))
        r.expect(try await storage.variants(of: keys[0]).count, equals: 1, "the oldest variant, revalidated since, after an eviction")
        r.expect(try await storage.variants(of: keys[1]).isEmpty, "the least recently used variant survived the eviction")
    }

    func tooLarge(_ storage: any CacheStorage, _ r: Recorder) async throws {
        let small = Fixtures.key("small")
        let key = Fixtures.key("big")
        try await Fixtures.put(storage, small, body: Data(count: 100))
        try await Fixtures.put(storage, key, body: Data(count: 100))
        let outcome = try await storage.store(Fixtures.response(key), body: .bytes(Data(count: 10_001)))
        r.expect(outcome.stored == nil, "a body larger than the whole limit was stored")
        r.expect(outcome.evictedCount, equals: 0, "variants evicted for a response that can't fit")
        r.expect(try await storage.variants(of: key).isEmpty, "the variant a refused response would replace is still served")
        r.expect(try await storage.variants(of: small).count, equals: 1, "another variant after a refused store")
    }

    func noRoom(_ storage: any CacheStorage, limit: Int, _ r: Recorder) async throws {
        r.expect(try await Fixtures.put(storage, Fixtures.key(), body: Data()) == nil, "an empty body was stored under a limit of \(limit)")
        r.expect(try await storage.totals().count, equals: 0, "the variant count under a limit of \(limit)")
    }

    func fileBodies(_ storage: any CacheStorage, _ r: Recorder) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-conformance-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let body = Fixtures.body(300_000)
        let file = directory.appendingPathComponent("download.bin")
        try body.write(to: file)
        let stored = try r.require(
            try await storage.store(Fixtures.response(Fixtures.key()), body: .file(file)).stored, "a 300,000-byte file was not stored")
        r.expect(stored.bodySize, equals: body.count, "the body size of a file")
        r.expect(try await storage.wholeBody(of: stored) == body, "the body stored from a file differs from the file")
        // Opened at one size, cut before the storage reads it: a torn body is never stored.
        let changing = Fixtures.key("changing")
        let opened = try CacheBody.file(file)
        try body.prefix(1000).write(to: file)
        do {
            let outcome = try await storage.store(Fixtures.response(changing), body: opened)
            r.record("a file cut after it was opened was stored (\(outcome.stored.map { "\($0.bodySize) bytes" } ?? "nothing")) without an error")
        } catch let error as CourierError {
            r.expect(error.kind, equals: .file, "the kind of error for a file that changed")
        } catch {
            r.record("a file that changed threw \(String(reflecting: error)), not a CourierError of kind .file")
        }
        r.expect(try await storage.variants(of: changing).isEmpty, "a file that changed while stored left a variant")
        r.expect(try await storage.totals().count, equals: 1, "the variant count after a refused file")
    }

    func concurrentUse(_ storage: any CacheStorage, _ r: Recorder) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let key = Fixtures.key("item\(index % 16)", partition: "p\(index % 3)")
                    let stored = try r.require(try await Fixtures.put(storage, key, body: Data("body-\(index)".utf8)), "a store of many at once failed")
                    await storage.recordUse(of: Fixtures.used(stored, at: .distantPast))
                    for variant in try await storage.variants(of: key) {
                        // This task's body or one that replaced it; never a torn read.
                        if let read = try await storage.wholeBody(of: variant) {
                            r.expect(read.starts(with: Data("body-".utf8)), "a torn read: \(read.count) bytes")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        r.expect(try await storage.totals().count, equals: 48, "variants after 64 stores under 48 keys")
    }
}

extension CacheStorage {
    /// Every stored variant of `key`, metadata only.
    func variants(of key: CacheKey) async throws -> [VariantMetadata] {
        try await variants(of: key, inlineBodyLimit: -1).map(\.metadata)
    }

    /// The whole body of a variant; nil when it was replaced or removed.
    func wholeBody(of variant: VariantMetadata) async throws -> Data? {
        guard let body = try await body(of: variant, offsets: 0..<variant.bodySize) else { return nil }
        return try await Data(collecting: body, upTo: variant.bodySize)
    }
}
