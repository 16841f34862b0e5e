import Courier
import CourierAsyncHTTPClient
import CourierCache
import CourierTesting
import Foundation
import GRDB
import Testing

/// The store fails loudly (logged with its path, counted) and degrades gracefully (recovers a
/// damaged file, falls back when the file can't be opened): a client never loses the network.
@Suite struct StoreFailureTests {
    /// Writes garbage over the database in place and empties its write-ahead log, as another
    /// program (or a bad backup restore) might while the app runs.
    static func overwrite(_ file: URL) throws {
        let handle = try FileHandle(forWritingTo: file)
        try handle.write(contentsOf: Data(repeating: 0x5A, count: 64 * 1024))
        try handle.synchronize()
        try handle.close()
        let wal = try FileHandle(forWritingTo: URL(fileURLWithPath: file.path + "-wal"))
        try wal.truncate(atOffset: 0)
        try wal.close()
    }

    @Test func aFileOverwrittenWhileInUseIsLoggedCountedAndRecovered() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("cache.sqlite")
            let logs = LogRecorder()
            let store = try SQLiteCacheStorage(fileURL: file, maximumSize: 1 << 20, logger: logs.logger)
            try await StoreFixtures.put(store, StoreFixtures.key("a"), body: Data("a".utf8))
            try Self.overwrite(file)

            // Operations fail until one notices the damage; then the file is replaced (a read that
            // noticed it is read again from the new file).
            for _ in 0 ..< 5 {
                do {
                    try await StoreFixtures.put(store, StoreFixtures.key("b"), body: Data("b".utf8))
                    _ = try await store.variants(for: StoreFixtures.key("b"))
                    break
                } catch {
                    continue
                }
            }
            #expect(store.recoveries == 1)
            #expect(logs.messages.contains { $0.contains("Cache store operation failed") && $0.contains(file.path) })
            #expect(logs.messages.contains { $0.contains("deleted and recreated") })
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { !$0.contains(".corrupt-") })

            try await StoreFixtures.put(store, StoreFixtures.key("c"), body: Data("c".utf8))
            #expect(try await store.variants(for: StoreFixtures.key("c")).count == 1)
        }
    }

    @Test func aFailedWriteIsLoggedAndCountedAndTheCallSucceeds() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("cache.sqlite")
            let server = try await MockServer.start()
            defer { Task { try? await server.shutdown() } }
            countingRoute(server, headers: [MockHeader("Cache-Control", "max-age=600")])
            let logs = LogRecorder()
            let store = try SQLiteCacheStorage(fileURL: file, maximumSize: 1 << 20, logger: logs.logger)
            // Every insert fails from now on, as on a full disk.
            let other = try DatabaseQueue(path: file.path)
            try await other.write { db in
                try db.execute(sql: "CREATE TRIGGER refuse BEFORE INSERT ON entry BEGIN SELECT RAISE(ABORT, 'disk is full'); END")
            }
            let cache = HTTPCache(storage: store)
            let client = Client(baseURL: server.baseURL, transport: AsyncHTTPClientTransport(), middlewares: [cache])

            let first = try await client.response(for: Feed(), cachePolicy: .followHTTP)
            #expect(first.source == .network)
            #expect(first.value["n"]?.int == 1)
            let statistics = try await cache.statistics()
            #expect(statistics.failures >= 1)
            #expect(statistics.entryCount == 0)
            #expect(logs.messages.contains { $0.contains("Cache store operation failed") && $0.contains(file.path) })
            // Nothing phantom is served: the next call goes to the network again.
            let second = try await client.response(for: Feed(), cachePolicy: .followHTTP)
            #expect(second.source == .network)
            #expect(server.requestCount("/feed") == 2)
        }
    }

    @Test func aClientKeepsWorkingAndCachesAgainAfterTheFileIsDamaged() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("cache.sqlite")
            let server = try await MockServer.start()
            defer { Task { try? await server.shutdown() } }
            countingRoute(server, headers: [MockHeader("Cache-Control", "max-age=600")])
            let store = try SQLiteCacheStorage(fileURL: file, maximumSize: 1 << 20)
            let cache = HTTPCache(storage: store)
            let client = Client(baseURL: server.baseURL, transport: AsyncHTTPClientTransport(), middlewares: [cache])
            _ = try await client.send(Feed(), cachePolicy: .followHTTP)
            try Self.overwrite(file)

            for _ in 0 ..< 3 { _ = try await client.send(Feed(), cachePolicy: .followHTTP) }
            let cached = try await client.response(for: Feed(), cachePolicy: .followHTTP)
            #expect(cached.source == .cache, "caching works again after the recovery")
            #expect(store.recoveries == 1)
        }
    }

    @Test func aFileThatCantBeOpenedNamesItsPathAndTheFallbackStillCaches() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            // A folder can't be created under a regular file, even by root.
            let blocker = directory.appendingPathComponent("not-a-folder")
            try Data("x".utf8).write(to: blocker)
            let file = blocker.appendingPathComponent("cache.sqlite")

            let error = try #require(#expect(throws: CacheStoreError.self) { try SQLiteCacheStorage(fileURL: file, maximumSize: 1 << 20) })
            #expect(error.description.contains(file.path))

            let logs = LogRecorder()
            let store = SQLiteCacheStorage.openOrFallBack(fileURL: file, maximumSize: 1 << 20, logger: logs.logger)
            #expect(store.fileURL == nil, "in memory")
            #expect(logs.messages.contains { $0.contains("caching in memory") && $0.contains(file.path) })
            try await StoreFixtures.put(store, StoreFixtures.key("a"), body: Data("a".utf8))
            #expect(try await store.variants(for: StoreFixtures.key("a")).count == 1)
        }
    }
}
