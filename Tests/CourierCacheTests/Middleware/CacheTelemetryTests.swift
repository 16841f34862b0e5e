import Courier
import CourierAsyncHTTPClient
import CourierCache
import CourierTesting
import Foundation
import InMemoryTracing
import MetricsTestKit
import Testing
import Tracing

/// What the telemetry middlewares record about the cache.
@Suite struct CacheTelemetryTests {
    @Test func aFreshHitIsRecordedOnTheCallSpanWithoutANetworkSpan() async throws {
        let metrics = TestMetrics()
        let tracer = InMemoryTracer()
        let server = try await MockServer.start()
        defer { Task { try? await server.shutdown() } }
        countingRoute(server, headers: [MockHeader("Cache-Control", "max-age=600")])
        let cache = HTTPCache(storage: InMemoryCacheStorage(maximumSize: 1 << 20))
        let client = Client(
            baseURL: server.baseURL, transport: AsyncHTTPClientTransport(),
            middlewares: [TelemetryMiddleware(), cache, AttemptTelemetryMiddleware()]
        ) { $0.telemetry = Telemetry(metrics: metrics, tracer: tracer) }

        _ = try await client.send(Feed(), cachePolicy: .followHTTP)
        #expect(tracer.finishedSpans.count == 2, "the miss: a call span and its network span")
        tracer.clearFinishedSpans()

        #expect(try await client.response(for: Feed(), cachePolicy: .followHTTP).source == .cache)
        let spans = tracer.finishedSpans
        #expect(spans.count == 1, "a hit has no network span")
        #expect(spans.first?.attributes["courier.cache.outcome"]?.toSpanAttribute() == "hit")
        #expect(metrics.counterTotal(label: MetricName.cacheRequests, dimensions: [("courier.operation", "Feed"), ("courier.cache.outcome", "hit")]) == 1)
        #expect(metrics.counterTotal(label: MetricName.cacheRequests, dimensions: [("courier.operation", "Feed"), ("courier.cache.outcome", "miss")]) == 1)
        #expect(metrics.counterTotal(label: MetricName.cacheStored) == 1)
        #expect(server.requestCount("/feed") == 1)
    }

    /// A 304 is `revalidated`, and the conditional request is an attempt span of the call's own.
    @Test func aRevalidationIsCountedAndIsAnAttemptSpanOfTheCall() async throws {
        let fixture = try await Fixture.make()
        defer { Task { try? await fixture.server.shutdown() } }
        fixture.server.route("GET", "/feed", script: [
            .json(#"{"n":1}"#, headers: [MockHeader("Cache-Control", "max-age=1"), MockHeader("ETag", #""v1""#)]),
            .status(304, headers: [MockHeader("Cache-Control", "max-age=1"), MockHeader("ETag", #""v1""#)]),
        ])
        _ = try await fixture.client.send(Feed(), cachePolicy: .followHTTP)
        fixture.clock.advance(by: 5)
        fixture.tracer.clearFinishedSpans()

        let response = try await fixture.client.response(for: Feed(), cachePolicy: .followHTTP)
        #expect(response.source == .revalidated)
        #expect(fixture.server.lastRequest?.header("If-None-Match") == #""v1""#)
        #expect(fixture.outcomes("revalidated") == 1)
        let spans = fixture.tracer.finishedSpans
        let call = try #require(spans.first { $0.attributes["http.request.resend_count"] == nil })
        #expect(call.attributes["courier.cache.outcome"]?.toSpanAttribute() == "revalidated")
        let attempts = spans.filter { $0.parentSpanID == call.spanID }
        #expect(attempts.count == 1, "the conditional request")
        #expect(attempts.first?.attributes["http.request.resend_count"]?.toSpanAttribute() == 0)
        #expect(attempts.first?.attributes["http.response.status_code"]?.toSpanAttribute() == 304)
    }

    @Test(arguments: [MockResponse.status(503), MockResponse.json("{}").with(fault: .reset)])
    func aStaleResponseServedOnErrorIsCountedAsStale(failure: MockResponse) async throws {
        let fixture = try await Fixture.make()
        defer { Task { try? await fixture.server.shutdown() } }
        fixture.server.route("GET", "/feed", script: [
            .json(#"{"n":1}"#, headers: [MockHeader("Cache-Control", "max-age=1, stale-if-error=600")]), failure,
        ])
        _ = try await fixture.client.send(Feed(), cachePolicy: .followHTTP)
        fixture.clock.advance(by: 5)

        let response = try await fixture.client.response(for: Feed(), cachePolicy: .followHTTP)
        #expect(response.source == .stale)
        #expect(response.value["n"]?.int == 1)
        #expect(fixture.server.requestCount("/feed") >= 2, "the origin was asked (a reset GET is sent once more)")
        #expect(fixture.outcomes("stale") == 1)
        #expect(fixture.outcomes("miss") == 1, "the first call")
    }

    /// A loopback server and a client with both telemetry middlewares around a cache on a settable clock.
    struct Fixture {
        let server: MockServer
        let client: Client
        let clock: TestDate
        let metrics: TestMetrics
        let tracer: InMemoryTracer

        static func make() async throws -> Fixture {
            let server = try await MockServer.start()
            let clock = TestDate()
            let cache = HTTPCache(storage: InMemoryCacheStorage(maximumSize: 1 << 20), now: { clock.now })
            let (metrics, tracer) = (TestMetrics(), InMemoryTracer())
            let client = Client(
                baseURL: server.baseURL, transport: AsyncHTTPClientTransport(),
                middlewares: [TelemetryMiddleware(), cache, AttemptTelemetryMiddleware()]
            ) { $0.telemetry = Telemetry(metrics: metrics, tracer: tracer) }
            return Fixture(server: server, client: client, clock: clock, metrics: metrics, tracer: tracer)
        }

        /// How many calls had this cache outcome.
        func outcomes(_ outcome: String) -> Int64 {
            metrics.counterTotal(label: MetricName.cacheRequests, dimensions: [("courier.operation", "Feed"), ("courier.cache.outcome", outcome)])
        }
    }

    @Test func evictionsCountTheBytesTheyRemove() async throws {
        let metrics = TestMetrics()
        let server = try await MockServer.start()
        defer { Task { try? await server.shutdown() } }
        let body = String(repeating: "x", count: 3000)
        server.route("GET", "/item/*", respond: .json(#"{"b":"\#(body)"}"#, headers: [MockHeader("Cache-Control", "max-age=600")]))
        let store = InMemoryCacheStorage(maximumSize: 8000)
        let cache = HTTPCache(storage: store)
        let client = Client(baseURL: server.baseURL, transport: AsyncHTTPClientTransport(), middlewares: [cache]) {
            $0.telemetry = Telemetry(metrics: metrics)
        }
        for n in 0 ..< 4 { _ = try await client.send(Feed(path: "/item/\(n)"), cachePolicy: .followHTTP) }
        let statistics = try await cache.statistics()
        #expect(statistics.evictions >= 2)
        #expect(metrics.counterTotal(label: MetricName.cacheEvictedBytes) >= 6000)
        #expect(metrics.counterTotal(label: MetricName.cacheStored) == 4)
    }
}
