import Courier
@testable import CourierCache
import Foundation
import GRDB
import Testing

/// Lookups read the file through connections of their own: a reopened store reads what was stored,
/// a read racing another store's writes sees the old or the new response (never a mix, never
/// nothing), rows a foreign program damaged are skipped, and a closed store lets go of the file.
@Suite struct StoreReadTests {
    @Test func aReopenedStoreReadsWhatWasStored() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("cache.sqlite")
            let key = StoreFixtures.key("reopened")
            let first = try SQLiteCacheStorage(fileURL: file, maximumSize: 1 << 20)
            try await StoreFixtures.put(first, key, body: Data("kept".utf8))
            await first.close()

            let reopened = try SQLiteCacheStorage(fileURL: file, maximumSize: 1 << 20)
            let variants = try await reopened.variants(of: key, inlineBodyLimit: 1 << 10)
            #expect(variants.count == 1)
            #expect(variants.first?.body == Data("kept".utf8))
            #expect(variants.first?.metadata.headers == StoreFixtures.headers)
            let found = try #require(try await reopened.variants(of: key, inlineBodyLimit: 64 * 1024).last)
            #expect(found.body == Data("kept".utf8))
        }
    }

    @Test func aReadRacingTheWriterSeesTheOldOrTheNewResponse() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("cache.sqlite")
            let key = StoreFixtures.key("raced")
            let reader = try SQLiteCacheStorage(fileURL: file, maximumSize: 8 << 20)
            // Another store on the file (as another process would) replaces the response again and again.
            let writer = try SQLiteCacheStorage(fileURL: file, maximumSize: 8 << 20)
            let bodies = (0..<2).map { Data(repeating: UInt8(ascii: $0 == 0 ? "a" : "b"), count: 3000) }
            try await StoreFixtures.put(writer, key, body: bodies[0])

            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for round in 1...60 { try await StoreFixtures.put(writer, key, body: bodies[round % 2]) }
                }
                group.addTask {
                    for _ in 0..<600 {
                        let variants = try await reader.variants(of: key, inlineBodyLimit: 1 << 16)
                        #expect(variants.count == 1)
                        #expect(variants.allSatisfy { bodies.contains($0.body ?? Data()) })
                        await Task.yield()
                    }
                }
                try await group.waitForAll()
            }
            let last = try await reader.variants(of: key, inlineBodyLimit: 1 << 16)
            #expect(last.map(\.body) == [bodies[0]], "the last commit is seen")
        }
    }

    #if os(Linux)
    @Test func aClosedStoreHoldsNoConnectionToItsFile() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("cache.sqlite")
            let store = try SQLiteCacheStorage(fileURL: file, maximumSize: 1 << 20)
            let keys = (0 ..< 8).map { StoreFixtures.key("items/\($0)") }
            for key in keys { try await StoreFixtures.put(store, key, body: Data("body".utf8)) }
            // Concurrent lookups, so that the store has several connections open at once.
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0 ..< 8 {
                    group.addTask {
                        var found = 0
                        for key in keys { found += try await store.variants(of: key, inlineBodyLimit: 1 << 10).count }
                        return found
                    }
                }
                for try await found in group { #expect(found == keys.count) }
            }
            #expect(try Self.openDescriptors(of: file) > 0)

            await store.close()
            #expect(try Self.openDescriptors(of: file) == 0)
            await #expect(throws: CacheStoreError.unavailable) {
                _ = try await store.variants(of: keys[0], inlineBodyLimit: 1 << 10)
            }
            #expect(try Self.openDescriptors(of: file) == 0)
        }
    }

    /// How many of this process's file descriptors are open on `file` (Linux's `/proc/self/fd`).
    private static func openDescriptors(of file: URL) throws -> Int {
        let target = file.resolvingSymlinksInPath().path
        return try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count { name in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)")) == target
        }
    }
    #endif

    @Test func damagedRowsAreSkippedByTheLookup() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("cache.sqlite")
            let store = try SQLiteCacheStorage(fileURL: file, maximumSize: 1 << 20)
            let key = StoreFixtures.key()
            try await StoreFixtures.put(store, key, body: Data("ok".utf8))
            try await StoreFixtures.insertForeignRow(into: file, url: key.url, vary: "x'00'", status: "200", bodySize: "-1")
            let variants = try await store.variants(of: key, inlineBodyLimit: 1 << 10)
            #expect(variants.map(\.body) == [Data("ok".utf8)])
        }
    }
}
