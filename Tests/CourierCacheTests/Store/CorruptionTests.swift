import CourierCache
import CourierTesting
import Foundation
import GRDB
import Logging
import Testing

@Suite struct CorruptionTests {
    private func asideFiles(in directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".corrupt-") }.sorted()
    }

    /// A garbage file is replaced by a working store, and deleted (with its journals) once the
    /// fresh file is open: whatever it held may be a user's data.
    @Test(arguments: [
        Data(repeating: 0xAB, count: 8192),
        Data("this is definitely not an SQLite database, just some text".utf8),
        Data("SQLite format 3\0".utf8) + Data(repeating: 0xFF, count: 4096),
    ])
    func garbageFileIsReplacedAndDeleted(garbage: Data) async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("cache.sqlite")
            try garbage.write(to: file)
            // A garbage journal beside it (SQLite discards an invalid WAL itself, or it goes too).
            try Data(repeating: 0x11, count: 100).write(to: URL(fileURLWithPath: file.path + "-wal"))
            let messages = LogRecorder()
            let logger = messages.logger
            let store = try SQLiteCacheStorage(fileURL: file, maximumSize: 1_000_000, logger: logger)
            try await StoreFixtures.put(store, StoreFixtures.key(), body: Data("fresh".utf8))
            #expect(try await store.variants(for: StoreFixtures.key()).count == 1)
            #expect(try asideFiles(in: directory).isEmpty)
            for suffix in ["", "-wal", "-shm"] {
                let path = file.path + suffix
                guard FileManager.default.fileExists(atPath: path) else { continue }
                #expect(try Data(contentsOf: URL(fileURLWithPath: path)) != garbage)
            }
            #expect(messages.entries.contains { $0.level == .warning })
        }
    }

    @Test func healthyFileIsNotMovedAside() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("cache.sqlite")
            _ = try SQLiteCacheStorage(fileURL: file, maximumSize: 1000)
            _ = try SQLiteCacheStorage(fileURL: file, maximumSize: 1000)
            #expect(try asideFiles(in: directory).isEmpty)
        }
    }

    @Test func undecodableRowsAreSkippedNotTrappedOn() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("cache.sqlite")
            let store = try SQLiteCacheStorage(fileURL: file, maximumSize: 1_000_000)
            let key = StoreFixtures.key()
            try await StoreFixtures.put(store, key, body: Data("ok".utf8))
            // Another writer (a foreign tool, an older version) damages a second row of the same key.
            try await StoreFixtures.insertForeignRow(into: file, url: key.url, vary: "'not json'", status: "99999", bodySize: "0")
            let variants = try await store.variants(for: key)
            #expect(variants.count == 1)
            #expect(try await store.body(of: try #require(variants.first)) == Data("ok".utf8))
        }
    }
}
