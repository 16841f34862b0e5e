import Courier
@testable import CourierCache
import Foundation
import OpenAPIRuntime
import Testing

/// Bodies stored from a file and read back as a stream, a chunk at a time, from one snapshot.
@Suite struct FileBodyTests {
    private static let key = StoreFixtures.key("files/report.bin")

    /// Writes `body` to a file in `directory` and stores the file; the variant stored, if any.
    @discardableResult
    private func putFile(_ store: SQLiteCacheStorage, _ body: Data, in directory: URL) async throws -> VariantMetadata? {
        try await store.store(StoreFixtures.response(Self.key), body: .file(try write(body, in: directory))).stored
    }

    private func write(_ body: Data, in directory: URL) throws -> URL {
        let file = directory.appendingPathComponent("body-\(UUID().uuidString)")
        try body.write(to: file)
        return file
    }

    private func collect(_ body: HTTPBody) async throws -> (chunks: Int, largest: Int, bytes: Data) {
        var (chunks, largest, bytes) = (0, 0, Data())
        for try await chunk in body {
            chunks += 1
            largest = max(largest, chunk.count)
            bytes.append(contentsOf: chunk)
        }
        return (chunks, largest, bytes)
    }

    @Test func aBodyFromAFileStreamsBackInChunks() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let store = try SQLiteCacheStorage(fileURL: directory.appendingPathComponent("cache.sqlite"), maximumSize: 10 << 20)
            let body = StoreFixtures.randomBody(700_000)
            let stored = try #require(try await putFile(store, body, in: directory))
            #expect(stored.bodySize == body.count)

            let whole = try await collect(try #require(try await store.body(of: stored, offsets: 0..<body.count)))
            #expect(whole.bytes == body)
            #expect(whole.chunks == 3)
            #expect(whole.largest == SQLiteCacheStorage.bodyChunkSize)

            let slice = try await collect(try #require(try await store.body(of: stored, offsets: 300_000..<300_100)))
            #expect(slice.bytes == body[300_000..<300_100])
            // The ordinary read sees the same bytes.
            #expect(try await store.body(of: stored) == body)
            await store.close()
        }
    }

    @Test func aStreamKeepsItsSnapshotWhileTheEntryIsReplaced() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let store = try SQLiteCacheStorage(fileURL: directory.appendingPathComponent("cache.sqlite"), maximumSize: 10 << 20)
            let old = StoreFixtures.randomBody(600_000)
            let stored = try #require(try await putFile(store, old, in: directory))
            let stream = try #require(try await store.body(of: stored, offsets: 0..<old.count))
            var iterator = stream.makeAsyncIterator()
            var read = Data(try #require(try await iterator.next()))

            // A newer response replaces the entry while the old one is being read.
            try await putFile(store, StoreFixtures.randomBody(600_000), in: directory)
            while let chunk = try await iterator.next() { read.append(contentsOf: chunk) }
            #expect(read == old)
            // Once replaced, the old entry has no body to stream.
            #expect(try await store.body(of: stored, offsets: 0..<10) == nil)
            await store.close()
        }
    }

    /// A file that another program appends to while it is copied is not stored (its bytes would
    /// not be the response's).
    @Test func aFileThatGrowsWhileItIsCopiedIsNotStored() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let store = try SQLiteCacheStorage(fileURL: directory.appendingPathComponent("cache.sqlite"), maximumSize: 100 << 20)
            let file = try write(Data(repeating: 7, count: 16 << 20), in: directory)
            let handle = try FileHandle(forWritingTo: file)
            let appending = Locked(true)
            // A write every half millisecond: many during the copy, without taking a core from the other tests.
            let appender = Thread {
                while appending.current {
                    _ = try? handle.seekToEnd()
                    try? handle.write(contentsOf: Data("more".utf8))
                    Thread.sleep(forTimeInterval: 0.0005)
                }
            }
            appender.start()
            let outcome = await #expect(throws: CourierError.self) {
                try await store.store(StoreFixtures.response(Self.key), body: try .file(file))
            }
            appending.withLock { $0 = false }
            #expect(outcome?.kind == .file)
            #expect(try await store.variants(for: Self.key).isEmpty)
            await store.close()
        }
    }

    @Test func aFileLargerThanTheStoreReplacesTheOlderVariantWithNothing() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let store = try SQLiteCacheStorage(fileURL: directory.appendingPathComponent("cache.sqlite"), maximumSize: 100_000)
            try await putFile(store, Data("an older version".utf8), in: directory)
            #expect(try await putFile(store, StoreFixtures.randomBody(200_000), in: directory) == nil)
            #expect(try await store.variants(for: Self.key).isEmpty)
            await store.close()
        }
    }
}

extension FileBodyTests {
    /// A large body passes through the WAL; the WAL doesn't keep that size on disk afterwards.
    @Test func theWriteAheadLogShrinksAfterALargeBody() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("cache.sqlite")
            let store = try SQLiteCacheStorage(fileURL: file, maximumSize: 100 << 20)
            try await putFile(store, Data(repeating: 7, count: 24 << 20), in: directory)
            // The next write starts the checkpointed WAL over, cut back to the limit.
            try await StoreFixtures.put(store, StoreFixtures.key("small"), body: Data("small".utf8))
            let wal = try FileManager.default.attributesOfItem(atPath: file.path + "-wal")[.size] as? Int ?? 0
            #expect(wal <= 16 << 20)
            await store.close()
        }
    }
}
