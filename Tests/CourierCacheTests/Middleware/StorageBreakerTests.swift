import Courier
import CourierAsyncHTTPClient
import CourierCache
import CourierTestSupport
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Logging
import Testing

/// A storage that fails costs one call its failure, then calls skip it for a cool-off (1 s,
/// doubling up to 30 s) and one call probes it; over a socket, with the cache's clock moved by the
/// test, counting the operations that reach the storage.
@Suite struct StorageBreakerTests {
    /// An in-memory storage that fails every operation while `failing`, and counts what reaches it.
    final class SickStorage: CacheStorage {
        let base = InMemoryCacheStorage(maximumSize: 1 << 20)
        let failing = Locked(false)
        let reached = Locked(0)
        /// Lookups fail while set, whatever `failing` says; `lookups` counts those that reach it.
        let failingLookups = Locked(false)
        let lookups = Locked(0)
        /// Stores wait while set (up to 30 s); `storesHeld` counts those that began waiting.
        let holdingStores = Locked(false)
        let storesHeld = Locked(0)
        struct Down: Error {}

        var maximumSize: Int { base.maximumSize }

        private func reach() throws {
            reached.withLock { $0 += 1 }
            if failing.current { throw Down() }
        }

        func secretKey() async throws -> [UInt8] {
            try reach()
            return try await base.secretKey()
        }

        func variants(of key: CacheKey, inlineBodyLimit: Int) async throws -> [StoredVariant] {
            lookups.withLock { $0 += 1 }
            if failingLookups.current { throw Down() }
            try reach()
            return try await base.variants(of: key, inlineBodyLimit: inlineBodyLimit)
        }

        func body(of variant: VariantMetadata, offsets: Range<Int>) async throws -> HTTPBody? {
            try reach()
            return try await base.body(of: variant, offsets: offsets)
        }

        func store(_ response: VariantToStore, body: CacheBody) async throws -> StoreOutcome {
            if holdingStores.current {
                storesHeld.withLock { $0 += 1 }
                _ = await eventually(within: .seconds(30)) { !holdingStores.current }
            }
            try reach()
            return try await base.store(response, body: body)
        }

        func updateHeaders(of variant: VariantMetadata, headers: HTTPFields, requestTime: Date, responseTime: Date) async throws -> Bool {
            try reach()
            return try await base.updateHeaders(of: variant, headers: headers, requestTime: requestTime, responseTime: responseTime)
        }

        func recordUse(of variant: VariantMetadata) async {
            reached.withLock { $0 += 1 }
            await base.recordUse(of: variant)
        }

        func remove(_ variant: VariantMetadata) async throws -> Bool {
            try reach()
            return try await base.remove(variant)
        }

        func removeAll(_ scope: CacheScope) async throws -> Int {
            try reach()
            return try await base.removeAll(scope)
        }

        func totals() async throws -> CacheTotals {
            try reach()
            return try await base.totals()
        }

        func variants(in partition: String?) async throws -> [VariantMetadata] {
            try reach()
            return try await base.variants(in: partition)
        }
    }

    @Test func aFailingStorageIsSkippedForACoolOffThatGrowsThenProbedOnce() async throws {
        let server = try await MockServer.start()
        defer { Task { try? await server.shutdown() } }
        countingRoute(server, headers: [MockHeader("Cache-Control", "max-age=600")])
        let storage = SickStorage()
        let clock = TestDate()
        let logs = LogRecorder()
        var cache = HTTPCache(storage: storage, logger: logs.logger, now: { clock.now })
        cache.uptime = { .seconds(clock.now.timeIntervalSince1970) }
        let client = Client(baseURL: server.baseURL, transport: AsyncHTTPClientTransport(), middlewares: [cache])
        func call() async throws -> ResponseSource {
            let source = try await client.response(for: Feed(), cachePolicy: .followHTTP).source
            await cache.flush()
            return source
        }

        storage.failing.withLock { $0 = true }
        #expect(try await call() == .network)
        let afterFirst = storage.reached.current
        #expect(afterFirst == 1, "the first call meets the failure once, and goes on without the cache")
        for _ in 0..<5 { #expect(try await call() == .network) }
        #expect(storage.reached.current == afterFirst, "resting: no call reaches the storage")
        let resting = try await cache.statistics()
        #expect(resting.failures == 1 && resting.skipped >= 5)
        #expect(storage.reached.current == afterFirst, "statistics answer from memory while it rests")

        // After 1 s one call probes, fails, and the cool-off doubles to 2 s.
        clock.advance(by: 1.5)
        _ = try await call()
        #expect(storage.reached.current == afterFirst + 1)
        clock.advance(by: 1.5)
        _ = try await call()
        #expect(storage.reached.current == afterFirst + 1, "still resting 1.5 s into a 2 s cool-off")

        // The storage is back: the next probe works, the breaker closes, and the cache serves again.
        storage.failing.withLock { $0 = false }
        clock.advance(by: 1)
        #expect(try await call() == .network)
        #expect(try await call() == .cache)
        #expect(logs.entries.filter { $0.level == .error }.count == 1, "the outage is logged once")
        #expect(logs.entries.filter { $0.level == .notice }.count == 1, "\(logs.messages)")
        let healthy = try await cache.statistics()
        #expect(healthy.entryCount == 1 && healthy.failures == 2)
    }

    @Test func aClearIsAlwaysTriedWhileTheStorageRests() async throws {
        let storage = SickStorage()
        let clock = TestDate()
        let cache = HTTPCache(storage: storage, now: { clock.now })
        let server = try await MockServer.start()
        defer { Task { try? await server.shutdown() } }
        countingRoute(server, headers: [MockHeader("Cache-Control", "max-age=600")])
        let client = Client(baseURL: server.baseURL, transport: AsyncHTTPClientTransport(), middlewares: [cache])
        storage.failing.withLock { $0 = true }
        _ = try await client.response(for: Feed(), cachePolicy: .followHTTP)
        let before = storage.reached.current
        storage.failing.withLock { $0 = false }
        try await cache.clear(identity: "alice")
        #expect(storage.reached.current > before, "a sign-out's clear reaches the storage, resting or not")
    }

    /// The breaker's time is monotonic: a wall clock set back an hour rests the storage for its
    /// 1 s cool-off, not for the hour.
    @Test func aWallClockSetBackRestsTheStorageNoLonger() async throws {
        let server = try await MockServer.start()
        defer { Task { try? await server.shutdown() } }
        countingRoute(server, headers: [MockHeader("Cache-Control", "max-age=600")])
        let storage = SickStorage()
        let wall = TestDate()
        let cache = HTTPCache(storage: storage, now: { wall.now })
        let client = Client(baseURL: server.baseURL, transport: AsyncHTTPClientTransport(), middlewares: [cache])
        storage.failing.withLock { $0 = true }
        _ = try await client.response(for: Feed(), cachePolicy: .followHTTP)
        await cache.flush()
        let rested = storage.reached.current
        storage.failing.withLock { $0 = false }
        wall.advance(by: -3600)
        // Past the cool-off on a clock that only moves forward.
        try await Task.sleep(for: .milliseconds(1_200))
        _ = try await client.response(for: Feed(), cachePolicy: .followHTTP)
        #expect(storage.reached.current > rested, "a probe reached the storage")
    }

    /// Only a lookup that works closes the breaker: a store that began before the storage failed
    /// and ends after says nothing of it now.
    @Test func aStoreThatEndsAfterAFailureLeavesTheStorageResting() async throws {
        let server = try await MockServer.start()
        defer { Task { try? await server.shutdown() } }
        server.route("GET", "/*") { _ in .json("{}", headers: [MockHeader("Cache-Control", "max-age=600")]) }
        let storage = SickStorage()
        var cache = HTTPCache(storage: storage)
        // Time stands still: however slow a loaded machine, the 1 s cool-off doesn't end here.
        cache.uptime = { .zero }
        let client = Client(baseURL: server.baseURL, transport: AsyncHTTPClientTransport(), middlewares: [cache])
        struct Page: Endpoint {
            typealias Response = JSON
            var number: Int
            var path: EndpointPath { "/pages/\(number)" }
        }
        storage.holdingStores.withLock { $0 = true }
        _ = try await client.response(for: Page(number: 1), cachePolicy: .followHTTP)
        #expect(await eventually(within: .seconds(30)) { storage.storesHeld.current == 1 }, "the first page's store waits")
        storage.failingLookups.withLock { $0 = true }
        _ = try await client.response(for: Page(number: 2), cachePolicy: .followHTTP)
        #expect(storage.lookups.current == 2, "the second page's lookup failed: the breaker opened")
        storage.holdingStores.withLock { $0 = false }
        await cache.flush()
        _ = try await client.response(for: Page(number: 3), cachePolicy: .followHTTP)
        #expect(storage.lookups.current == 2, "the late store left it resting: the third page skipped the storage")
    }
}
