import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import HTTPTypes
import InMemoryTracing
import MetricsTestKit
import Testing
import Tracing

/// Metrics and spans by OpenTelemetry's HTTP client conventions, over a real loopback server.
@Suite struct TelemetryTests {
    let metrics = TestMetrics()
    let tracer = InMemoryTracer()

    /// A client with the two telemetry middlewares around a quick retry.
    func client(_ server: MockServer) -> Client {
        // The retry budget and the timeout are not what is tested: sized for a loaded machine.
        let retry = RetryMiddleware(policy: RetryPolicy(baseDelay: .milliseconds(1), maximumDelay: .milliseconds(1), totalDeadline: .seconds(600)))
        return Client(baseURL: server.baseURL, middlewares: [TelemetryMiddleware(), retry, AttemptTelemetryMiddleware()]) {
            $0.telemetry = Telemetry(metrics: metrics, tracer: tracer)
            $0.timeout = .seconds(300)
        }
    }

    @Test func aCallRetriedTwiceIsOneCallSpanWithThreeAttemptSpans() async throws {
        try await withServer { server in
            server.route("GET", "/users/*", script: [.status(503), .status(503), .json(#"{"id":"7"}"#)])
            _ = try await client(server).send(GetUser(id: "7"))

            let spans = tracer.finishedSpans
            let call = try #require(spans.first(where: Self.isCallSpan))
            #expect(call.operationName == "GET /users/{}")
            #expect(call.kind == .client)
            #expect(call.attributes["url.template"]?.toSpanAttribute() == "/users/{}")
            #expect(call.attributes["http.response.status_code"]?.toSpanAttribute() == 200)
            let attempts = spans.filter { $0.parentSpanID == call.spanID }
            #expect(attempts.count == 3)
            #expect(attempts.compactMap(Self.resendCount).sorted() == [0, 1, 2])
            #expect(spans.count == 4)

            let durations = metrics.timers(label: MetricName.requestDuration)
            #expect(durations.count == 1)
            #expect(durations.first?.values.count == 1)
            #expect(Self.has(durations.first?.dimensions, "http.response.status_code", "200"))
            #expect(metrics.counterTotal(label: MetricName.retries) == 2)
            #expect(Self.has(metrics.counters(label: MetricName.retries).first?.dimensions, "courier.retry.reason", "503"))
        }
    }

    @Test func aReplayAfterATokenRefreshIsAnAttemptSpanOfItsOwn() async throws {
        try await withServer { server in
            let store = CredentialStore(.bearer("old", identity: "u1", refreshToken: "r1"))
            server.route("GET", "/users/*") { request in
                request.header("Authorization") == "Bearer new" ? .json("{}") : .status(401)
            }
            let refresh = TokenRefreshMiddleware(store: store) { old in .bearer("new", identity: old.identity) }
            _ = try await client(server, [refresh, CredentialsMiddleware(provider: store)]).send(GetUser(id: "7"))

            let spans = tracer.finishedSpans
            let call = try #require(spans.first(where: Self.isCallSpan))
            #expect(call.attributes["http.response.status_code"]?.toSpanAttribute() == 200)
            let attempts = spans.filter { $0.parentSpanID == call.spanID }.sorted { (Self.resendCount($0) ?? -1) < (Self.resendCount($1) ?? -1) }
            #expect(attempts.compactMap(Self.resendCount) == [0, 1], "the refused attempt, then the replay")
            #expect(attempts.map { $0.attributes["http.response.status_code"]?.toSpanAttribute() } == [401, 200])
            #expect(spans.count == 3)
        }
    }

    @Test func aNotFoundIsRecordedAsErrorType404() async throws {
        try await withServer { server in
            server.route("GET", "/users/*", respond: .status(404))
            _ = await #expect(throws: CourierError.self) { try await client(server).send(GetUser(id: "nobody")) }
            let duration = try #require(metrics.timers(label: MetricName.requestDuration).first)
            #expect(Self.has(duration.dimensions, "error.type", "404"))
            let call = try #require(tracer.finishedSpans.first(where: Self.isCallSpan))
            #expect(call.status?.code == .error)
            #expect(call.attributes["error.type"]?.toSpanAttribute() == "404")
        }
    }

    /// Label cardinality is pipeline logic: a stub transport answers, so 1,000 calls stay cheap.
    @Test func aThousandIDsMakeOneLabelSet() async throws {
        do {
            let client = Client(baseURL: stubBaseURL, transport: StubTransport.answering(body: "{}"), middlewares: [TelemetryMiddleware()]) {
                $0.telemetry = Telemetry(metrics: metrics, tracer: tracer)
            }
            for id in 0 ..< 1000 { _ = try await client.send(GetUser(id: "user-\(id)")) }
            let durations = metrics.timers(label: MetricName.requestDuration)
            #expect(durations.count == 1)
            #expect(durations.first?.values.count == 1000)
            #expect(Self.has(durations.first?.dimensions, "url.template", "/v1/users/{}"))
            #expect(Self.has(durations.first?.dimensions, "courier.operation", "TelemetryTests.GetUser"))
        }
    }

    @Test func theTaskTraceContinuesOnTheServer() async throws {
        try await withServer { server in
            server.route("GET", "/users/*", respond: .json("{}"))
            let parent = tracer.startSpan("incoming request", context: .topLevel, ofKind: .server)
            try await ServiceContext.withValue(parent.context) {
                _ = try await client(server).send(GetUser(id: "1"))
            }
            parent.end()
            let sent = try #require(server.lastRequest)
            #expect(sent.header(InMemoryTracer.traceIDKey) == parent.traceID)
            let attempt = try #require(tracer.finishedSpans.first { !Self.isCallSpan($0) })
            #expect(sent.header(InMemoryTracer.spanIDKey) == attempt.spanID, "the server's parent is the attempt span")
        }
    }

    @Test func aRequestWithoutATemplateGetsAFixedPlaceholder() async throws {
        try await withServer { server in
            server.route("GET", "/raw/*", respond: .json("{}"))
            // A generated client's call: no Courier context, so no template.
            let middleware = TelemetryMiddleware(telemetry: Telemetry(metrics: metrics, tracer: tracer))
            let transport = URLSessionTransport()
            for id in 0 ..< 3 {
                _ = try await middleware.intercept(
                    HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/raw/\(id)?q=\(id)"), body: nil,
                    baseURL: server.baseURL, operationID: "getRaw"
                ) { request, body, baseURL in try await transport.send(request, body: body, baseURL: baseURL, operationID: "getRaw") }
            }
            let durations = metrics.timers(label: MetricName.requestDuration)
            #expect(durations.count == 1)
            #expect(Self.has(durations.first?.dimensions, "url.template", "{unknown}"))
            #expect(tracer.finishedSpans.map(\.operationName) == Array(repeating: "GET {unknown}", count: 3))
        }
    }

    @Test func withNoBackendsNothingIsRecordedAndNothingIsInjected() async throws {
        try await withServer { server in
            server.route("GET", "/users/*", respond: .json("{}"))
            let client = Client(baseURL: server.baseURL, middlewares: [TelemetryMiddleware(), AttemptTelemetryMiddleware()])
            _ = try await client.send(GetUser(id: "1"))
            #expect(server.lastRequest?.header(InMemoryTracer.traceIDKey) == nil)
        }
    }

    static func has(_ dimensions: [(String, String)]?, _ key: String, _ value: String) -> Bool {
        (dimensions ?? []).contains { $0.0 == key && $0.1 == value }
    }

    static func isCallSpan(_ span: FinishedInMemorySpan) -> Bool {
        span.attributes["http.request.resend_count"] == nil
    }

    static func resendCount(_ span: FinishedInMemorySpan) -> Int64? {
        guard case .int64(let count) = span.attributes["http.request.resend_count"]?.toSpanAttribute() else { return nil }
        return count
    }

    struct GetUser: Endpoint {
        typealias Response = JSON
        var id: String
        var path: EndpointPath { "/users/\(id)" }
    }
}
