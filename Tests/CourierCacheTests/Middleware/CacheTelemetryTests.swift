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
        let cache = HTTPCache(store: try CacheStore.inMemory(maximumSize: 1 << 20))
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

    @Test func evictionsCountTheBytesTheyRemove() async throws {
        let metrics = TestMetrics()
        let server = try await MockServer.start()
        defer { Task { try? await server.shutdown() } }
        let body = String(repeating: "x", count: 3000)
        server.route("GET", "/item/*", respond: .json(#"{"b":"\#(body)"}"#, headers: [MockHeader("Cache-Control", "max-age=600")]))
        let store = try CacheStore.inMemory(maximumSize: 8000)
        let client = Client(baseURL: server.baseURL, transport: AsyncHTTPClientTransport(), middlewares: [HTTPCache(store: store)]) {
            $0.telemetry = Telemetry(metrics: metrics)
        }
        for n in 0 ..< 4 { _ = try await client.send(Feed(path: "/item/\(n)"), cachePolicy: .followHTTP) }
        let statistics = try await store.statistics()
        #expect(statistics.evictions >= 2)
        #expect(metrics.counterTotal(label: MetricName.cacheEvictedBytes) >= 6000)
        #expect(metrics.counterTotal(label: MetricName.cacheStored) == 4)
    }
}
