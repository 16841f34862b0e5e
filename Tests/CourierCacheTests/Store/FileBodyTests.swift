import Courier
@testable import CourierCache
import Foundation
import OpenAPIRuntime
import Testing

/// Bodies stored from a file and read back as a stream, a chunk at a time, from one snapshot.
@Suite struct FileBodyTests {
    private static let key = StoreFixtures.key("files/report.bin")

    /// Writes `body` to a file in `directory`, stores the file and waits for the copy; the variant stored, if any.
    @discardableResult
    private func putFile(_ store: CacheStore, _ body: Data, in directory: URL) async throws -> CachedMetadata? {
        let file = try write(body, in: directory)
        try enqueue(file, in: store)
        await store.flush()
        return try await store.variants(for: Self.key).first
    }

    private func write(_ body: Data, in directory: URL) throws -> URL {
        let file = directory.appendingPathComponent("body-\(UUID().uuidString)")
        try body.write(to: file)
        return file
    }

    private func enqueue(_ file: URL, in store: CacheStore) throws {
        try store.enqueue(
            key: Self.key, varySelection: .none, status: 200, headers: StoreFixtures.headers, bodyFile: file,
            requestTime: StoreFixtures.t0, responseTime: StoreFixtures.t0)
    }

    /// Runs `body` while the store's writer is held up, then lets it go and waits for it.
    private func whileTheWriterWaits(_ store: CacheStore, _ body: () throws -> Void) async rethrows {
        let gate = DispatchSemaphore(value: 0)
        store.writerQueue.async { gate.wait() }
        defer { gate.signal() }
        try body()
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
            let store = try CacheStore(fileURL: directory.appendingPathComponent("cache.sqlite"), maximumSize: 10 << 20)
            let body = StoreFixtures.randomBody(700_000)
            let stored = try #require(try await putFile(store, body, in: directory))
            #expect(stored.bodySize == body.count)

            let whole = try await collect(try #require(try await store.streamedBody(for: stored, offsets: 0..<body.count)))
            #expect(whole.bytes == body)
            #expect(whole.chunks == 3)
            #expect(whole.largest == CacheStore.bodyChunkSize)

            let slice = try await collect(try #require(try await store.streamedBody(for: stored, offsets: 300_000..<300_100)))
            #expect(slice.bytes == body[300_000..<300_100])
            // The ordinary read sees the same bytes.
            #expect(try await store.body(for: stored) == body)
            await store.close()
        }
    }

    @Test func aStreamKeepsItsSnapshotWhileTheEntryIsReplaced() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let store = try CacheStore(fileURL: directory.appendingPathComponent("cache.sqlite"), maximumSize: 10 << 20)
            let old = StoreFixtures.randomBody(600_000)
            let stored = try #require(try await putFile(store, old, in: directory))
            let stream = try #require(try await store.streamedBody(for: stored, offsets: 0..<old.count))
            var iterator = stream.makeAsyncIterator()
            var read = Data(try #require(try await iterator.next()))

            // A newer response replaces the entry while the old one is being read.
            try await putFile(store, StoreFixtures.randomBody(600_000), in: directory)
            while let chunk = try await iterator.next() { read.append(contentsOf: chunk) }
            #expect(read == old)
            // Once replaced, the old entry has no body to stream.
            #expect(try await store.streamedBody(for: stored, offsets: 0..<10) == nil)
            await store.close()
        }
    }

    @Test func aMissingFileIsAFileErrorAndStoresNothing() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let store = try CacheStore(fileURL: directory.appendingPathComponent("cache.sqlite"), maximumSize: 10 << 20)
            let error = #expect(throws: CourierError.self) { try enqueue(directory.appendingPathComponent("gone.bin"), in: store) }
            #expect(error?.kind == .file)
            await store.flush()
            #expect(try await store.statistics().entryCount == 0)
            await store.close()
        }
    }

    /// The file is opened when the response is accepted: a download moved into place, or deleted
    /// by the app, before the writer copies it is stored all the same.
    @Test func aFileMovedOrDeletedBeforeTheCopyIsStillStored() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let store = try CacheStore(fileURL: directory.appendingPathComponent("cache.sqlite"), maximumSize: 10 << 20)
            let body = StoreFixtures.randomBody(300_000)
            let file = try write(body, in: directory)
            try await whileTheWriterWaits(store) {
                try enqueue(file, in: store)
                try FileManager.default.removeItem(at: file)
            }
            await store.flush()
            let stored = try #require(try await store.variants(for: Self.key).first)
            #expect(try await store.body(for: stored) == body)
            await store.close()
        }
    }

    @Test func aFileChangedBeforeTheCopyIsNotStored() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let store = try CacheStore(fileURL: directory.appendingPathComponent("cache.sqlite"), maximumSize: 10 << 20)
            let file = try write(StoreFixtures.randomBody(300_000), in: directory)
            try await whileTheWriterWaits(store) {
                try enqueue(file, in: store)
                let handle = try FileHandle(forWritingTo: file)
                try handle.seekToEnd()
                try handle.write(contentsOf: Data("more".utf8))
                try handle.close()
            }
            await store.flush()
            #expect(try await store.variants(for: Self.key).isEmpty)
            #expect(try await store.statistics().failures == 1)
            await store.close()
        }
    }

    @Test func aFileLargerThanTheStoreReplacesTheOlderVariantWithNothing() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let store = try CacheStore(fileURL: directory.appendingPathComponent("cache.sqlite"), maximumSize: 100_000)
            try await putFile(store, Data("an older version".utf8), in: directory)
            #expect(try await putFile(store, StoreFixtures.randomBody(200_000), in: directory) == nil)
            #expect(try await store.variants(for: Self.key).isEmpty)
            await store.close()
        }
    }

    @Test func anInMemoryStoreStreamsFromMemory() async throws {
        let store = try CacheStore.inMemory(maximumSize: 1 << 20)
        let body = StoreFixtures.randomBody(100_000)
        let stored = try #require(try await StoreFixtures.put(store, Self.key, body: body))
        let slice = try await collect(try #require(try await store.streamedBody(for: stored, offsets: 10..<90_000)))
        #expect(slice.bytes == body[10..<90_000])
    }
}

extension FileBodyTests {
    /// A large body passes through the WAL; the WAL doesn't keep that size on disk afterwards.
    @Test func theWriteAheadLogShrinksAfterALargeBody() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("cache.sqlite")
            let store = try CacheStore(fileURL: file, maximumSize: 100 << 20)
            try await putFile(store, Data(repeating: 7, count: 24 << 20), in: directory)
            // The next write starts the checkpointed WAL over, cut back to the limit.
            try await StoreFixtures.put(store, StoreFixtures.key("small"), body: Data("small".utf8))
            let wal = try FileManager.default.attributesOfItem(atPath: file.path + "-wal")[.size] as? Int ?? 0
            #expect(wal <= 16 << 20)
            await store.close()
        }
    }
}
