import Courier
import CourierAsyncHTTPClient
import CourierCache
import CourierCachePostgres
import CourierTestSupport
import CourierTesting
import Foundation
import PostgresNIO
import Testing

/// A cache database that is down or hangs never fails a call: the call goes to the network within
/// the storage's timeout, the cache logs once and counts each failure, and caches again once the
/// database is back. Each test has a server of its own, since it stops or freezes it.
///
/// The storage's timeout (5 s) and the time bounds are generous for a machine loaded by the whole
/// suite under Thread Sanitizer: a storage without a timeout would hang a call on a frozen database
/// for good, which the bounds and the suite's time limit fail.
@Suite(.serialized, .timeLimit(.minutes(5)), .enabled(if: ThrowawayPostgres.isAvailable, "PostgreSQL is not installed"))
struct OutageTests {
    struct Page: Endpoint {
        typealias Response = Data
        var path: EndpointPath = "/feed"
        var cachePolicy: CachePolicy? { .followHTTP }
    }

    struct Setup {
        let postgres: ThrowawayPostgres
        let origin: MockServer
        let running: Task<Void, Never>
        let cache: HTTPCache
        let client: Client
        let logs: LogRecorder

        /// Runs `body` with a fresh setup, ended after it (its server stopped and removed).
        static func with(_ body: (Setup) async throws -> Void) async throws {
            let setup = try await make()
            do {
                try await body(setup)
            } catch {
                await setup.tearDown()
                throw error
            }
            await setup.tearDown()
        }

        private static func make() async throws -> Setup {
            let postgres = try await ThrowawayPostgres.startPrivate()
            let database = try await postgres.makeDatabase()
            let postgresClient = PostgresClient(configuration: postgres.configuration(database: database))
            let running = Task { await postgresClient.run() }
            let origin = try await MockServer.start()
            origin.route("GET", "/feed") { _ in .text("feed", headers: [MockHeader("Cache-Control", "max-age=600")]) }
            let logs = LogRecorder()
            let storage = PostgresCacheStorage(client: postgresClient, maximumSize: 10 << 20, timeout: .seconds(5))
            let cache = HTTPCache(storage: storage, logger: logs.logger)
            let client = Client(baseURL: origin.baseURL, transport: AsyncHTTPClientTransport(), middlewares: [cache])
            return Setup(postgres: postgres, origin: origin, running: running, cache: cache, client: client, logs: logs)
        }

        /// Calls until one is answered from the cache (the database is back); how many it took.
        func callUntilCached(within seconds: Double) async throws -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if try await client.response(for: Page()).source == .cache { return true }
                await cache.flush()
                try await Task.sleep(for: .milliseconds(200))
            }
            return false
        }

        /// Stores the feed and waits until a call is answered from the cache; the storage failures
        /// logged so far (a loaded machine may see one before the test's own outage).
        func cachedOnce() async throws -> Int {
            _ = try await client.response(for: Page())
            #expect(try await callUntilCached(within: 60))
            return failuresLogged
        }

        var failuresLogged: Int { logs.messages.filter { $0.contains("storage failed") }.count }

        func tearDown() async {
            running.cancel()
            try? await origin.shutdown()
            await postgres.shutDown()
        }
    }

    @Test func aDatabaseThatIsDownCostsTheCacheNotTheCall() async throws {
        try await Setup.with { setup in
            let loggedBefore = try await setup.cachedOnce()
            await setup.postgres.stop()
            for _ in 0..<4 {
                let started = ContinuousClock.now
                let response = try await setup.client.response(for: Page())
                #expect(response.source == .network)
                #expect(String(decoding: response.value, as: UTF8.self) == "feed")
                #expect(started.duration(to: .now) < .seconds(60), "bounded by the storage's timeout (5 s)")
            }
            #expect(setup.failuresLogged == loggedBefore + 1, "logged once for the outage")
            try await setup.postgres.start()
            #expect(try await setup.callUntilCached(within: 60), "caches again once the database is back")
            #expect(setup.logs.messages.contains { $0.contains("storage works again") })
            // Each call met the outage: as a failure, or skipping the resting storage at once.
            let stats = try await setup.cache.statistics()
            #expect(stats.failures >= 1 && stats.failures + stats.skipped >= 4, "each call counted")
        }
    }

    /// Four callers keep calling while the database stops and starts again: no call fails.
    @Test func aDatabaseRestartedUnderLoadFailsNoCall() async throws {
        try await Setup.with { setup in
            let loading = Locked(true)
            let calls = Locked(0)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        while loading.current, !Task.isCancelled {
                            let response = try await setup.client.response(for: Page())
                            #expect(String(decoding: response.value, as: UTF8.self) == "feed")
                            calls.withLock { $0 += 1 }
                        }
                    }
                }
                // The callers stop whatever comes of the restart (a failed start throws from here).
                defer { loading.withLock { $0 = false } }
                try await Task.sleep(for: .milliseconds(300))
                await setup.postgres.stop()
                try await Task.sleep(for: .seconds(1))
                try await setup.postgres.start()
                try await Task.sleep(for: .milliseconds(300))
                loading.withLock { $0 = false }
                try await group.waitForAll()
            }
            #expect(calls.current >= 4, "every caller got through")
            #expect(try await setup.callUntilCached(within: 60), "caches again after the restart")
        }
    }

    @Test func aDatabaseThatHangsCostsACallNoMoreThanTheTimeout() async throws {
        try await Setup.with { setup in
            let loggedBefore = try await setup.cachedOnce()
            try await setup.postgres.freeze(true)
            do {
                var durations: [Duration] = []
                for _ in 0..<3 {
                    let started = ContinuousClock.now
                    let response = try await setup.client.response(for: Page())
                    #expect(response.source == .network)
                    durations.append(started.duration(to: .now))
                    #expect(durations.last ?? .zero < .seconds(60), "the lookup gives up after 5 s")
                }
                // Statistics answer from memory while the database hangs; the first call's own
                // store came after the failure, so it was skipped, not queued behind the timeout.
                let stats = try await setup.cache.statistics()
                #expect(stats.skipped > 0 && stats.failures >= 1)
                print("a frozen database, each call: \(durations.map { "\($0)" }.joined(separator: ", ")); skipped \(stats.skipped)")
            } catch {
                try? await setup.postgres.freeze(false)
                throw error
            }
            #expect(setup.failuresLogged == loggedBefore + 1)
            try await setup.postgres.freeze(false)
            #expect(try await setup.callUntilCached(within: 60))
        }
    }
}
