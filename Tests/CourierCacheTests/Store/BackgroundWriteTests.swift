import Courier
import CourierAsyncHTTPClient
@testable import CourierCache
import CourierTesting
import Foundation
import GRDB
import Testing

/// Responses stored by `HTTPCache` are written off the caller's path: reads see them at once,
/// closing or releasing the store writes them, a failed write is reported without failing the
/// call, and the bytes waiting for the writer are bounded.
@Suite struct BackgroundWriteTests {
    /// Holds the store's writer until `release()`, so accepted responses stay pending meanwhile.
    struct PausedWriter {
        let store: CacheStore

        init(_ store: CacheStore) {
            self.store = store
            store.writerQueue.suspend()
        }

        func release() {
            store.writerQueue.resume()
        }
    }

    /// A server whose `/feed` is fresh for ten minutes and counts its calls.
    static func server() async throws -> MockServer {
        let server = try await MockServer.start()
        countingRoute(server, headers: [MockHeader("Cache-Control", "max-age=600")])
        return server
    }

    static func client(_ server: MockServer, _ store: CacheStore) -> Client {
        Client(baseURL: server.baseURL, transport: AsyncHTTPClientTransport(), middlewares: [HTTPCache(store: store)])
    }

    @Test func aResponseIsReadBackRightAfterTheMissWhileItsWriteWaits() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("cache.sqlite")
            let server = try await Self.server()
            defer { Task { try? await server.shutdown() } }
            let store = try CacheStore(fileURL: file, maximumSize: 1 << 20)
            let client = Self.client(server, store)
            let paused = PausedWriter(store)

            let first = try await client.response(for: Feed(), cachePolicy: .followHTTP)
            #expect(first.source == .network)
            #expect(store.pending.size.count == 1, "the write waits for the writer, the caller does not")
            let second = try await client.response(for: Feed(), cachePolicy: .followHTTP)
            #expect(second.source == .cache)
            #expect(second.value["n"]?.int == 1)
            #expect(server.requestCount("/feed") == 1)

            paused.release()
            await store.flush()
            #expect(store.pending.size.count == 0)
            let third = try await client.response(for: Feed(), cachePolicy: .followHTTP)
            #expect(third.source == .cache)
            #expect(server.requestCount("/feed") == 1)
        }
    }

    /// A drain that empties the queue (a flush) ends the writer's wait: the timer set before it no
    /// longer counts, so when it fires it leaves the responses queued since to their own timer
    /// instead of committing them early, cut off from the ones that follow.
    @Test func aFlushEndsTheWritersWait() throws {
        let pending = PendingWrites()
        func write(_ name: String) -> PendingWrites.Write {
            let key = StoreFixtures.key(name)
            let metadata = CachedMetadata(
                id: pending.temporaryID(), key: key, varySelection: .none, status: 200, headers: StoreFixtures.headers,
                requestTime: StoreFixtures.t0, responseTime: StoreFixtures.t0, bodySize: 1, storedAt: StoreFixtures.t0,
                lastAccess: StoreFixtures.t0)
            return PendingWrites.Write(
                metadata: metadata, body: Data("b".utf8), varyData: Data(), headerData: Data(), metaSize: 1, telemetry: Telemetry())
        }
        let first = try #require(pending.append(write("first")).startTimer)
        #expect(pending.append(write("again")).startTimer == nil, "one timer for the writes that wait together")
        #expect(pending.isCurrent(timer: first))

        // The flush: one batch, committed, and the queue found empty.
        let batch = pending.nextBatch()
        pending.finish(batch, ids: [1, 2])
        #expect(pending.nextBatch().isEmpty)
        #expect(!pending.isCurrent(timer: first), "the flush ended the first timer's wait")

        let second = try #require(pending.append(write("second")).startTimer)
        #expect(!pending.isCurrent(timer: first), "the first timer, firing now, must not commit the newer write")
        #expect(pending.isCurrent(timer: second))
    }

    @Test func aPendingVariantIsVisibleToEveryReadAndKeepsItsHandleAfterTheCommit() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("cache.sqlite")
            let store = try CacheStore(fileURL: file, maximumSize: 1 << 20)
            let key = StoreFixtures.key("a")
            let paused = PausedWriter(store)
            #expect(await store.enqueue(
                key: key, varySelection: .none, status: 200, headers: StoreFixtures.headers, body: Data("pending".utf8),
                requestTime: StoreFixtures.t0, responseTime: StoreFixtures.t0))

            let found = try #require(try await store.lookup(key, select: { $0.last }))
            #expect(found.metadata.id < 0)
            #expect(found.body == Data("pending".utf8))
            #expect(found.metadata.headers == StoreFixtures.headers)
            #expect(try await store.variants(for: key).map(\.id) == [found.metadata.id])
            #expect(try await store.body(for: found.metadata) == Data("pending".utf8))

            paused.release()
            await store.flush()
            // The handle read before the commit still reaches the committed row.
            #expect(try await store.body(for: found.metadata) == Data("pending".utf8))
            let committed = try #require(try await store.lookup(key, select: { $0.last }))
            #expect(committed.metadata.id > 0)
            #expect(committed.metadata.headers == StoreFixtures.headers)
            #expect(try await store.remove(found.metadata))
            #expect(try await store.variants(for: key).isEmpty)
        }
    }

    @Test func closingWritesWhatIsPendingAndAReopenedStoreHasIt() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("cache.sqlite")
            let server = try await Self.server()
            defer { Task { try? await server.shutdown() } }
            let store = try CacheStore(fileURL: file, maximumSize: 1 << 20)
            let paused = PausedWriter(store)
            _ = try await Self.client(server, store).send(Feed(), cachePolicy: .followHTTP)
            #expect(store.pending.size.count == 1)
            let release = Task {
                try await Task.sleep(for: .milliseconds(200))
                paused.release()
            }
            await store.close()
            try await release.value
            #expect(store.pending.size.count == 0)

            let reopened = try CacheStore(fileURL: file, maximumSize: 1 << 20)
            let later = try await Self.client(server, reopened).response(for: Feed(), cachePolicy: .followHTTP)
            #expect(later.source == .cache)
            #expect(server.requestCount("/feed") == 1)
        }
    }

    @Test func aReleasedStoreStillWritesWhatItAccepted() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("cache.sqlite")
            let server = try await Self.server()
            defer { Task { try? await server.shutdown() } }
            weak var released: CacheStore?
            do {
                let store = try CacheStore(fileURL: file, maximumSize: 1 << 20)
                released = store
                _ = try await Self.client(server, store).send(Feed(), cachePolicy: .followHTTP)
            }
            // The writer holds the store until the response is written, then lets it go.
            _ = await eventually { released == nil }
            #expect(released == nil)
            let reopened = try CacheStore(fileURL: file, maximumSize: 1 << 20)
            #expect(try await reopened.statistics().entryCount == 1)
        }
    }

    @Test func aFailedBackgroundWriteIsLoggedAndCountedAndTheCallSucceeds() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("cache.sqlite")
            let server = try await Self.server()
            defer { Task { try? await server.shutdown() } }
            let logs = LogRecorder()
            let store = try CacheStore(fileURL: file, maximumSize: 1 << 20, logger: logs.logger)
            // Every insert fails from now on, as on a full disk.
            let other = try DatabaseQueue(path: file.path)
            try await other.write { db in
                try db.execute(sql: "CREATE TRIGGER refuse BEFORE INSERT ON entry BEGIN SELECT RAISE(ABORT, 'disk is full'); END")
            }
            let client = Self.client(server, store)

            let first = try await client.response(for: Feed(), cachePolicy: .followHTTP)
            #expect(first.source == .network)
            #expect(first.value["n"]?.int == 1)
            await store.flush()
            let statistics = try await store.statistics()
            #expect(statistics.failures >= 1)
            #expect(statistics.entryCount == 0)
            #expect(logs.messages.contains { $0.contains("Cache store operation failed") && $0.contains(file.path) })
            // Nothing phantom is served: the next call goes to the network again.
            let second = try await client.response(for: Feed(), cachePolicy: .followHTTP)
            #expect(second.source == .network)
            #expect(server.requestCount("/feed") == 2)
        }
    }

    @Test func beyondThePendingLimitTheCallerWaitsForTheWriter() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("cache.sqlite")
            let server = try await Self.server()
            defer { Task { try? await server.shutdown() } }
            let store = try CacheStore(fileURL: file, maximumSize: 1 << 20, pendingWriteLimit: 16)
            let client = Self.client(server, store)
            let paused = PausedWriter(store)
            let finished = Locked(false)
            let call = Task {
                _ = try await client.send(Feed(), cachePolicy: .followHTTP)
                finished.withLock { $0 = true }
            }
            _ = await eventually { store.pending.size.count > 0 }
            #expect(store.pending.size.count == 1)
            // Nothing signals that the caller is still waiting: a short grace for a wrong return to
            // show (it can't make this fail).
            try await Task.sleep(for: .milliseconds(300))
            #expect(!finished.current, "the response is larger than the limit: the caller waits")
            paused.release()
            try await call.value
            #expect(finished.current)
            #expect(store.pending.size.count == 0, "the call returned once its response was written")
        }
    }

    @Test func aHitOnAnEntryUsedWithinTheMinuteRecordsNoUse() async throws {
        let store = try CacheStore.inMemory(maximumSize: 1 << 20)
        let stored = try #require(try await StoreFixtures.put(store, StoreFixtures.key("a"), body: Data("a".utf8)))
        await store.recordUse(of: stored)
        #expect(!store.pendingTouches.hasAny, "stored just now: no write")
        let usedLongAgo = CachedMetadata(
            id: stored.id, key: stored.key, varySelection: stored.varySelection, status: stored.status, headers: stored.headers,
            requestTime: stored.requestTime, responseTime: stored.responseTime, bodySize: stored.bodySize,
            storedAt: stored.storedAt, lastAccess: stored.lastAccess.addingTimeInterval(-2 * CacheStore.useGranularity))
        await store.recordUse(of: usedLongAgo)
        #expect(store.pendingTouches.hasAny)
    }
}
