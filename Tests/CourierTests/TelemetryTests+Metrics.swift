import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import HTTPTypes
import InMemoryTracing
import MetricsTestKit
import Testing
import Tracing

/// The metrics of a call besides its duration, over a real loopback server: calls in flight, body
/// sizes, the server and method labels, token refreshes by outcome, GETs that joined one in flight.
extension TelemetryTests {
    @Test(.timeLimit(.minutes(10))) func activeRequestsCountsACallWhileItIsInFlight() async throws {
        try await withServer { server in
            let (arrived, release) = (Signal(), Signal())
            server.route("GET", "/users/*") { _ in
                arrived.increment()
                await release.wait()
                return .json("{}")
            }
            let client = client(server)
            let call = Task { try await client.send(GetUser(id: "7")) }
            await arrived.wait()
            let meter = try #require(metrics.meters(label: MetricName.activeRequests).first)
            #expect(meter.lastValue == 1, "one call in flight")
            release.increment()
            _ = try await call.value
            #expect(meter.lastValue == 0, "none once it answered")
            #expect(metrics.meters(label: MetricName.activeRequests).count == 1)
            let labels = [("http.request.method", "GET"), ("server.address", "127.0.0.1"), ("server.port", "\(server.port)"), ("url.template", "/users/{}")]
            for (key, value) in labels { #expect(Self.has(meter.dimensions, key, value), "\(meter.dimensions)") }
        }
    }

    @Test func bodySizesAndTheServerAndMethodLabelsAreRecorded() async throws {
        try await withServer { server in
            let answer = #"{"id":"7","name":"Ada Lovelace"}"#
            server.route("POST", "/users", respond: .json(answer))
            _ = try await client(server).send(CreateUser(name: "Ada Lovelace"))

            let sent = try #require(server.lastRequest)
            #expect(!sent.body.isEmpty)
            let requestSize = try #require(metrics.recorders(label: MetricName.requestBodySize).first)
            #expect(requestSize.values == [Double(sent.body.count)])
            let responseSize = try #require(metrics.recorders(label: MetricName.responseBodySize).first)
            #expect(responseSize.values == [Double(answer.utf8.count)])
            let duration = try #require(metrics.timers(label: MetricName.requestDuration).first)
            for dimensions in [requestSize.dimensions, responseSize.dimensions, duration.dimensions] {
                #expect(Self.has(dimensions, "http.request.method", "POST"), "\(dimensions)")
                #expect(Self.has(dimensions, "server.address", "127.0.0.1"), "\(dimensions)")
                #expect(Self.has(dimensions, "server.port", String(server.port)), "\(dimensions)")
                #expect(Self.has(dimensions, "url.template", "/users"), "\(dimensions)")
            }
            let call = try #require(tracer.finishedSpans.first(where: Self.isCallSpan))
            #expect(call.attributes["http.request.method"]?.toSpanAttribute() == "POST")
            #expect(call.attributes["server.address"]?.toSpanAttribute() == "127.0.0.1")
            #expect(call.attributes["server.port"]?.toSpanAttribute() == .int64(Int64(server.port)))
        }
    }

    /// A redirect to another server doesn't choose the labels: they name the call's own origin, so
    /// a server can't grow the label sets.
    @Test func theServerLabelsAreTheCallsOriginAfterARedirect() async throws {
        try await withServer { server in
            let other = try await MockServer.start(host: "127.0.0.2")
            defer { Task { try? await other.shutdown() } }
            server.route("GET", "/users/*", respond: .status(302, headers: [MockHeader("Location", other.url("/elsewhere").absoluteString)]))
            other.route("GET", "/elsewhere", respond: .json("{}"))
            _ = try await client(server).send(GetUser(id: "7"))
            #expect(other.requestCount("/elsewhere") == 1)
            let timers = metrics.timers(label: MetricName.requestDuration)
            #expect(!timers.isEmpty)
            for timer in timers {
                #expect(Self.has(timer.dimensions, "server.address", "127.0.0.1"), "\(timer.dimensions)")
                #expect(Self.has(timer.dimensions, "server.port", String(server.port)), "\(timer.dimensions)")
            }
        }
    }

    /// Three calls refused at once share one refresh: one `succeeded`, two `joined`.
    @Test(.timeLimit(.minutes(10))) func aSharedTokenRefreshCountsOneSuccessAndItsWaiters() async throws {
        try await withServer { server in
            let store = CredentialStore(.bearer("old", identity: "u1", refreshToken: "r1"))
            server.route("GET", "/users/*") { request in
                request.header("Authorization") == "Bearer new" ? .json("{}") : .status(401)
            }
            let metrics = metrics
            let refresh = TokenRefreshMiddleware(store: store) { old in
                // Ends only once the other two calls wait for it.
                await Self.eventually { Self.refreshes(metrics, "joined") == 2 }
                return .bearer("new", identity: old.identity)
            }
            let client = client(server, [refresh, CredentialsMiddleware(provider: store)])
            try await withThrowingTaskGroup(of: Void.self) { group in
                for id in 1 ... 3 { group.addTask { _ = try await client.send(GetUser(id: "\(id)")) } }
                try await group.waitForAll()
            }
            #expect(Self.refreshes(metrics, "succeeded") == 1)
            #expect(Self.refreshes(metrics, "joined") == 2)
            #expect(Self.refreshes(metrics, "failed") == 0)
        }
    }

    @Test(arguments: [("failed", CourierError.Kind.noConnection), ("refused", .sessionExpired)])
    func aTokenRefreshThatFailsIsCountedByOutcome(outcome: String, kind: CourierError.Kind) async throws {
        try await withServer { server in
            let store = CredentialStore(.bearer("old", identity: "u1", refreshToken: "r1"))
            server.route("GET", "/users/*", respond: .status(401))
            let refresh = TokenRefreshMiddleware(store: store) { _ in throw CourierError(kind, detail: "the auth server said no") }
            let error = await #expect(throws: CourierError.self) {
                try await client(server, [refresh, CredentialsMiddleware(provider: store)]).send(GetUser(id: "1"))
            }
            #expect(error?.kind == kind)
            #expect(Self.refreshes(metrics, outcome) == 1)
            #expect(Self.refreshes(metrics, "succeeded") == 0)
        }
    }

    @Test(.timeLimit(.minutes(10))) func aGetThatJoinsAnIdenticalOneInFlightIsCounted() async throws {
        try await withServer { server in
            let (arrived, release) = (Signal(), Signal())
            server.route("GET", "/users/*") { _ in
                arrived.increment()
                await release.wait()
                return .json("{}")
            }
            let client = client(server)
            // Coalescing is for calls that may use a cache: any policy but `withoutCache`.
            let first = Task { try await client.send(GetUser(id: "1"), cachePolicy: .networkOnly) }
            await arrived.wait()
            let second = Task { try await client.send(GetUser(id: "1"), cachePolicy: .networkOnly) }
            let label = MetricName.coalescedRequests
            await Self.eventually { metrics.counterTotal(label: label) == 1 }
            release.increment()
            _ = try await (first.value, second.value)
            #expect(server.requestCount("/users/1") == 1)
            #expect(metrics.counterTotal(label: label, dimensions: [("courier.operation", "TelemetryTests.GetUser")]) == 1)
        }
    }

    /// A client with the two telemetry middlewares around `middlewares`.
    func client(_ server: MockServer, _ middlewares: [any ClientMiddleware]) -> Client {
        Client(baseURL: server.baseURL, middlewares: [TelemetryMiddleware()] + middlewares + [AttemptTelemetryMiddleware()]) {
            $0.telemetry = Telemetry(metrics: metrics, tracer: tracer)
        }
    }

    static func refreshes(_ metrics: TestMetrics, _ outcome: String) -> Int64 {
        metrics.counterTotal(label: MetricName.tokenRefreshes, dimensions: [("courier.refresh.outcome", outcome)])
    }

    /// Returns once `condition` holds, checking every 5 ms; the 120 s limit is a backstop far
    /// beyond what a passing run waits, so a loaded machine doesn't fail it.
    static func eventually(_ condition: @Sendable () -> Bool) async {
        let deadline = ContinuousClock.now + .seconds(120)
        while !condition(), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
    }

    struct CreateUser: Endpoint {
        typealias Response = JSON
        var name: String
        var method: HTTPRequest.Method { .post }
        var path: EndpointPath { "/users" }
        var parameters: Parameters { ["name": name] }
    }
}
