import Courier
import CourierCallbacks
import CourierExamples
import CourierTesting
import Dispatch
import Foundation
import Logging
import Testing

@Suite struct CallAndCredentialTests {
    /// A transport that counts the requests it got, then waits until cancelled (or 600 s, far
    /// beyond any call of these tests), like a server that never answers.
    private static func hanging(arrived: Signal = Signal()) -> StubTransport {
        StubTransport { _, _ in
            arrived.increment()
            try await Task.sleep(for: .seconds(600))
            return (HTTPResponse(status: .ok), Data(#"{"id":1,"title":"a"}"#.utf8))
        }
    }

    @Test func completionHandlersDeliverOnTheChosenQueue() async throws {
        let (client, _) = stubClient(body: #"{"id":1,"title":"a"}"#)
        let queue = DispatchQueue(label: "delivery")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "delivery")
        let (value, onQueue) = await withCheckedContinuation { continuation in
            client.send(TestEndpoint<Item>(), queue: queue) { result in
                continuation.resume(returning: (try? result.get(), DispatchQueue.getSpecific(key: key) == "delivery"))
            }
        }
        #expect(value == Item(id: 1, title: "a"))
        #expect(onQueue)
    }

    /// The transport ignores cancellation and answers only once the test lets it (or after 120 s,
    /// a backstop so a broken cancel fails instead of hanging): the cancelled result arrives while
    /// it still hangs ("promptly" needs no clock), and its late success is never delivered.
    @Test func cancellingACallReportsCancelledExactlyOnceAndPromptly() async throws {
        let arrived = Signal(), release = Signal()
        let answered = Locked(false)
        let transport = StubTransport { _, _ in
            arrived.increment()
            await release.wait()
            answered.withLock { $0 = true }
            return (HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]), Data(#"{"id":1,"title":"a"}"#.utf8))
        }
        let backstop = Task {
            try? await Task.sleep(for: .seconds(120))
            release.increment()
        }
        defer { backstop.cancel() }
        let client = Client(baseURL: stubBaseURL, transport: transport) { $0.timeout = .seconds(300) }
        let deliveries = Locked<[(result: Result<Item, CourierError>, whileHanging: Bool)]>([])
        let delivered = Signal()
        let handle = client.send(TestEndpoint<Item>(), queue: .global()) { result in
            deliveries.withLock { $0.append((result, !answered.current)) }
            delivered.increment()
        }
        await arrived.wait()
        handle.cancel()
        handle.cancel()
        try #require(await delivered.wait(for: 1, within: .seconds(150)), "the cancel was never delivered")
        #expect(handle.isFinished)
        #expect(deliveries.current.first?.whileHanging == true, "the cancel was delivered only once the transport answered")
        // The transport answers now; its success must not be delivered. Nothing signals that it
        // was not: a short grace for a wrong second delivery to show (it can't make this fail).
        release.increment()
        try await Task.sleep(for: .milliseconds(200))
        let results = deliveries.current.map(\.result)
        #expect(results.count == 1)
        let error = try #require(results.first.flatMap { result -> CourierError? in
            if case .failure(let error) = result { return error }
            return nil
        })
        #expect(error.kind == .cancelled)
    }

    /// The transport has the request when the task is cancelled; it would answer only after 600 s.
    @Test func cancellingAnAsyncCallThrowsCancelled() async throws {
        let arrived = Signal()
        let client = Client(baseURL: stubBaseURL, transport: Self.hanging(arrived: arrived)) { $0.timeout = .seconds(300) }
        let task = Task { try await client.send(TestEndpoint<Item>()) }
        await arrived.wait()
        task.cancel()
        let error = await #expect(throws: CourierError.self) { try await task.value }
        #expect(error?.kind == .cancelled)
    }

    /// The endpoint's 100 ms timeout, not the client's 300 s, ends a call the transport would
    /// answer after 600 s.
    @Test func aSlowResponseTimesOutWithTheEndpointsTimeout() async throws {
        struct Quick: Endpoint {
            typealias Response = JSON
            var path: EndpointPath { "/slow" }
            var timeout: Duration? { .milliseconds(100) }
        }
        let client = Client(baseURL: stubBaseURL, transport: Self.hanging()) { $0.timeout = .seconds(300) }
        let started = ContinuousClock.now
        let error = await #expect(throws: CourierError.self) { try await client.send(Quick()) }
        #expect(error?.kind == .timedOut)
        // Half the client's timeout: beyond any machine's slowness.
        #expect(ContinuousClock.now - started < .seconds(150))
    }

    @Test func credentialsGoInHeadersOfEveryRequestAndSigningOutRemovesThem() async throws {
        let store = CredentialStore(.authToken("secret-token", userID: "u1"))
        let transport = StubTransport.answering(body: #"{"success":true}"#)
        let client = Client.rocketChat(baseURL: stubBaseURL, credentials: store, transport: transport)
        _ = try await client.send(ThreadRequest.delete(threadID: "t1"))
        let signed = try #require(transport.requests.last?.request)
        #expect(signed.headerFields[.xAuthToken] == "secret-token")
        #expect(signed.headerFields[.xUserID] == "u1")
        #expect(signed.path?.contains("secret-token") == false)

        let signedOut = Locked<String?>(nil)
        store.onSignOut { identity in signedOut.withLock { $0 = identity } }
        store.signOut()
        #expect(signedOut.current == "u1")
        _ = try await client.send(ThreadRequest.delete(threadID: "t1"))
        let anonymous = try #require(transport.requests.last?.request)
        #expect(anonymous.headerFields[.xAuthToken] == nil)
    }

    @Test func endpointsCanOptOutOfCredentials() async throws {
        struct Public: Endpoint {
            typealias Response = JSON
            var path: EndpointPath { "/public" }
            var requiresAuthentication: Bool { false }
        }
        let transport = StubTransport.answering(body: "{}")
        let client = Client(baseURL: stubBaseURL, transport: transport, middlewares: [CredentialsMiddleware(provider: CredentialStore(.bearer("t", identity: "u")))])
        _ = try await client.send(Public())
        #expect(transport.requests.first?.request.headerFields[.authorization] == nil)
    }

    @Test func theTimingLogWritesOneLinePerRequest() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("timing-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: file) }
        let transport = StubTransport { request, _ in
            request.path == "/missing" ? (HTTPResponse(status: .notFound), Data()) : (HTTPResponse(status: .ok), Data(#"{"id":1,"title":"a"}"#.utf8))
        }
        let client = Client(baseURL: stubBaseURL, transport: transport, middlewares: [try TimingLogMiddleware(fileURL: file)])
        _ = try await client.send(TestEndpoint<Item>())
        _ = try? await client.send(TestEndpoint<Item>(path: "/missing"))
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        #expect(lines.count == 2)
        #expect(lines[0][1...3] == ["GET", "TestEndpoint", "200"])
        #expect(lines[0][5] == "20")
        #expect(lines[0][6] == "network")
        #expect(lines[1][3] == "404")
        let permissions = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(permissions == 0o600, "the timing log is its owner's alone")
    }

    /// The client's own secret list reaches the logging middleware, which keeps its own default list too.
    @Test func loggingUsesTheClientsSecretList() async throws {
        let sink = LogRecorder()
        let transport = StubTransport.answering(body: "{}")
        let client = Client(baseURL: stubBaseURL, transport: transport, middlewares: [LoggingMiddleware(logger: sink.logger(level: .debug))]) {
            $0.redaction.headerNames.insert("x-tenant-secret")
            $0.redaction.queryNames.insert("tenant")
        }
        _ = try await client.send(TestEndpoint<JSON>(query: ["tenant": "t-77", "api_key": "k-88"], headers: [HTTPField.Name("X-Tenant-Secret")!: "ts-99"]))
        let text = sink.messages.joined(separator: "\n")
        for secret in ["t-77", "k-88", "ts-99"] { #expect(!text.contains(secret), "\(secret) in \(text)") }
    }

    @Test func loggingRedactsSecretsAndIsSilentByDefault() async throws {
        let sink = LogRecorder()
        let logger = sink.logger(level: .debug)
        let transport = StubTransport.answering(body: "{}")
        let client = Client(
            baseURL: stubBaseURL, transport: transport,
            middlewares: [LoggingMiddleware(logger: logger), CredentialsMiddleware(provider: CredentialStore(.bearer("s3cr3t", identity: "u")))]
        )
        _ = try await client.send(TestEndpoint<JSON>(query: ["access_token": "abc", "page": 1]))
        let text = sink.messages.joined(separator: "\n")
        #expect(text.contains("request"))
        #expect(text.contains("access_token=REDACTED"))
        #expect(!text.contains("abc"))
        #expect(!text.contains("s3cr3t"))
    }

    /// The summary is put together lazily; what it shows, prints and dumps is redacted all the same.
    @Test func requestSummariesNeverShowSecrets() async throws {
        let client = Client(baseURL: stubBaseURL, transport: StubTransport.answering(body: "{}"))
        let response = try await client.response(for: TestEndpoint<JSON>(query: ["access_token": "abc", "page": 1]))
        #expect(response.request.url.contains("access_token=REDACTED"))
        #expect(response.request.url.hasPrefix(stubBaseURL.absoluteString))
        var dumped = ""
        dump(response.request, to: &dumped)
        #expect("\(response.request)".contains("REDACTED"))
        #expect(!dumped.contains("abc") && !"\(response.request)".contains("abc"))
        #expect(response.request == RequestSummary(method: .get, url: response.request.url))
    }
}

