import Courier
import CourierTestSupport
import CourierAsyncHTTPClient
import CourierCache
import CourierTesting
import Foundation
import Testing
import OpenAPIRuntime

/// The cache sees every redirect hop under its own URL, and stale-while-revalidate answers at once
/// while one revalidation runs in the background.
@Suite(.serialized) struct RedirectAndRevalidationTests {
    @Test(arguments: CacheTransport.allCases, [
        (302, [MockHeader]()),
        (307, [MockHeader("Cache-Control", "no-store")]),
    ])
    func eachRedirectHopIsCachedUnderItsOwnURL(transport: CacheTransport, redirect: (status: Int, headers: [MockHeader])) async throws {
        let fixture = try await CacheFixture.make(transport: transport.make())
        defer { Task { await fixture.tearDown() } }
        fixture.server.route("GET", "/old", respond: .status(redirect.status, headers: [MockHeader("Location", "/new")] + redirect.headers))
        countingRoute(fixture.server, "/new", headers: [MockHeader("Cache-Control", "max-age=3600")])

        #expect(try await fixture.client.send(Feed(path: "/old"), cachePolicy: .followHTTP)["n"]?.int == 1)
        let second = try await fixture.client.response(for: Feed(path: "/old"), cachePolicy: .followHTTP)
        #expect(second.value["n"]?.int == 1, "the target's fresh copy is reused")
        #expect(fixture.server.requestCount("/old") == 2, "the redirect itself was not fresh: the origin is asked again")
        #expect(fixture.server.requestCount("/new") == 1)
    }

    /// The revalidation is held at the server until both callers have their answer: they can only
    /// have it if they didn't wait for the revalidation.
    @Test func withinStaleWhileRevalidateTheCallerGetsTheStaleCopyAtOnce() async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        let calls = Locked(0)
        let release = Level()
        defer { release.open() }
        fixture.server.route("GET", "/feed") { _ in
            let n = calls.withLock { value -> Int in
                value += 1
                return value
            }
            if n > 1 { await release.wait() }
            return .json(#"{"n":\#(n)}"#, headers: [MockHeader("Cache-Control", "max-age=1, stale-while-revalidate=60")])
        }
        _ = try await fixture.client.send(Feed(), cachePolicy: .followHTTP)
        fixture.clock.advance(by: 1.5)

        let first = try await fixture.client.response(for: Feed(), cachePolicy: .followHTTP)
        let second = try await fixture.client.response(for: Feed(), cachePolicy: .followHTTP)
        #expect(first.source == .stale && second.source == .stale)
        #expect(first.value["n"]?.int == 1 && second.value["n"]?.int == 1)
        release.open()

        await fixture.client.waitForBackgroundWork()
        #expect(fixture.server.requestCount("/feed") == 2, "one background revalidation for both callers")
        let refreshed = try await fixture.client.response(for: Feed(), cachePolicy: .followHTTP)
        #expect(refreshed.source == .cache)
        #expect(refreshed.value["n"]?.int == 2)
    }

    @Test func aFailedBackgroundRevalidationIsLoggedAndKeepsTheEntry() async throws {
        let server = try await MockServer.start()
        defer { Task { try? await server.shutdown() } }
        let logs = LogRecorder()
        let store = InMemoryCacheStorage(maximumSize: 1 << 20)
        let clock = TestDate()
        let client = Client(baseURL: server.baseURL, transport: AsyncHTTPClientTransport(), middlewares: [HTTPCache(storage: store, logger: logs.logger, now: { clock.now })])
        server.route("GET", "/feed", script: [
            .json(#"{"n":1}"#, headers: [MockHeader("Cache-Control", "max-age=1, stale-while-revalidate=60")]),
            MockResponse.json("{}").with(fault: .reset),
        ])
        _ = try await client.send(Feed(), cachePolicy: .followHTTP)
        clock.advance(by: 2)
        #expect(try await client.response(for: Feed(), cachePolicy: .followHTTP).source == .stale)
        await client.waitForBackgroundWork()
        #expect(logs.messages.contains { $0.contains("Background revalidation failed") })
        let again = try await client.response(for: Feed(), cachePolicy: .followHTTP)
        #expect(again.source == .stale)
        #expect(again.value["n"]?.int == 1)
    }

    /// A revalidation the origin never answers holds a connection until its call's timeout (60 s)
    /// unless it ends with its client: released, or asked to cancel its background work.
    @Test(arguments: [false, true])
    func backgroundRevalidationEndsWithItsClient(cancelsExplicitly: Bool) async throws {
        let server = try await MockServer.start()
        defer { Task { try? await server.shutdown() } }
        let store = InMemoryCacheStorage(maximumSize: 1 << 20)
        let clock = TestDate()
        server.route("GET", "/feed", script: [
            // Closed after the answer, so the only connection left open is the revalidation's.
            .json(#"{"n":1}"#, headers: [
                MockHeader("Cache-Control", "max-age=1, stale-while-revalidate=60"), MockHeader("Connection", "close"),
            ]),
            MockResponse.json("{}").with(fault: .neverAnswer),
        ])
        // A timeout past the wait below: only a cancel can end the revalidation within it.
        var client: Client? = Client(
            baseURL: server.baseURL, transport: AsyncHTTPClientTransport(), middlewares: [HTTPCache(storage: store, now: { clock.now })]
        ) { $0.timeout = .seconds(600) }
        _ = try await client?.send(Feed(), cachePolicy: .followHTTP)
        clock.advance(by: 2)
        #expect(try await client?.response(for: Feed(), cachePolicy: .followHTTP).source == .stale)
        _ = await eventually { server.requestCount("/feed") >= 2 }
        try #require(server.requestCount("/feed") == 2, "the revalidation reached the origin")

        if cancelsExplicitly {
            client?.cancelBackgroundWork()
            await client?.waitForBackgroundWork()
        } else {
            client = nil
        }
        // The server never answers: only the cancel closes the connection (the wait is a backstop,
        // shorter than the call's timeout).
        #expect(await server.waitUntilConnectionsClosed(timeout: .seconds(120)), "the revalidation's connection is still open")
    }

    @Test func pastTheWindowTheCallerWaitsForTheRevalidation() async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        countingRoute(fixture.server, headers: [MockHeader("Cache-Control", "max-age=1, stale-while-revalidate=5")])
        _ = try await fixture.client.send(Feed(), cachePolicy: .followHTTP)
        fixture.clock.advance(by: 10)
        let response = try await fixture.client.response(for: Feed(), cachePolicy: .followHTTP)
        #expect(response.source == .network)
        #expect(response.value["n"]?.int == 2)
    }

    /// The background revalidation runs the steps after the cache (a plain `ClientMiddleware` and
    /// the credentials there sign it), not the ones before it, and asks with the stored validator.
    @Test func theBackgroundRevalidationRunsTheStepsAfterTheCache() async throws {
        let server = try await MockServer.start()
        defer { Task { try? await server.shutdown() } }
        let clock = TestDate()
        let cache = HTTPCache(storage: InMemoryCacheStorage(maximumSize: 1 << 20), now: { clock.now })
        let credentials = CredentialStore(.bearer("token-a", identity: "alice"))
        let seen = Locked<[String]>([])
        server.route("GET", "/feed") { request in
            let ask = "\(request.header("Authorization") ?? "-") \(request.header("If-None-Match") ?? "-")"
            seen.withLock { $0.append(ask) }
            let headers = [MockHeader("Cache-Control", "max-age=1, stale-while-revalidate=60"), MockHeader("ETag", #""v1""#)]
            return request.header("If-None-Match") == #""v1""# ? .status(304, headers: headers) : .json(#"{"n":1}"#, headers: headers)
        }
        let before = CountingMiddleware()
        let after = CountingMiddleware()
        let client = Client(
            baseURL: server.baseURL, transport: AsyncHTTPClientTransport(),
            middlewares: [before, cache, after, CredentialsMiddleware(provider: credentials)]
        )
        _ = try await client.send(Feed(), cachePolicy: .followHTTP)
        clock.advance(by: 2)
        #expect(try await client.response(for: Feed(), cachePolicy: .followHTTP).source == .stale)
        await client.waitForBackgroundWork()

        #expect(seen.withLock { $0 } == [#"Bearer token-a -"#, #"Bearer token-a "v1""#])
        #expect(before.count == 2, "the two calls, not the revalidation")
        #expect(after.count == 2, "the first call's request and the revalidation")
        #expect(try await client.response(for: Feed(), cachePolicy: .followHTTP).source == .cache, "the 304 refreshed the entry")
    }
}

/// Counts the requests that pass it: an app's own `ClientMiddleware`, which reads no context.
private struct CountingMiddleware: ClientMiddleware {
    private let passed = Locked(0)
    var count: Int { passed.withLock { $0 } }

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        passed.withLock { $0 += 1 }
        return try await next(request, body, baseURL)
    }
}
