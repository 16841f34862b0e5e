// Tests of app code against a real in-process server, a stub transport, a manual clock and a log recorder.
//
// These are Swift Testing tests: `swift test --filter TestingYourApp` runs them (the file is
// linked into Tests/CourierTestingTests).

// snippet.hide
import Foundation
import HTTPTypes
// snippet.show
import Courier
import CourierTesting
import Testing

// The app code under test: an endpoint and a service.
struct Article: Codable, Sendable, Equatable { var id: Int; var title: String }
struct LatestArticles: Endpoint {
    typealias Response = [Article]
    var path: EndpointPath { "/articles" }
    var parameters: Parameters { ["limit": 20] }
}
struct NewsService {
    let client: Client
    func latest() async throws(CourierError) -> [Article] { try await client.send(LatestArticles()) }
}

// snippet.mockServer
// MockServer is a real HTTP server on 127.0.0.1 and a free port: the client under test
// runs its whole pipeline, transport included. Routes answer with scripted responses
// and every request is recorded.
@Test func loadsTheLatestArticles() async throws {
    let server = try await MockServer.start()
    server.route("GET", "/articles", respond: .json([Article(id: 1, title: "Hello")]))

    let news = NewsService(client: Client(baseURL: server.baseURL))
    #expect(try await news.latest() == [Article(id: 1, title: "Hello")])
    #expect(server.lastRequest?.queryValue("limit") == "20")

    try await server.shutdown()
}
// snippet.end

// snippet.faults
// Faults: delays, a dripping body, a connection closed mid-body or reset, no answer at all,
// `503 + Retry-After` then success, and refusing connections while "down".
@Test func showsTheServersMessageAndSurvivesOutages() async throws {
    let server = try await MockServer.start()
    let news = NewsService(client: Client(baseURL: server.baseURL))

    server.route("GET", "/articles", respond: .json(#"{"message": "Down for maintenance"}"#, status: 503))
    let maintenance = await #expect(throws: CourierError.self) { try await news.latest() }
    #expect(maintenance?.family == .server)
    #expect(maintenance?.serverMessage == "Down for maintenance")

    server.route("GET", "/articles", respond: MockResponse.json("[]").with(fault: .neverAnswer))
    let impatient = NewsService(client: Client(baseURL: server.baseURL) { $0.timeout = .milliseconds(300) })
    let slow = await #expect(throws: CourierError.self) { try await impatient.latest() }
    #expect(slow?.kind == .timedOut)

    try await server.goDown()                       // the port now refuses connections
    let offline = await #expect(throws: CourierError.self) { try await news.latest() }
    #expect(offline?.family == .noConnection)

    try await server.shutdown()
}
// snippet.end

// snippet.ranged
// Ranged responses: answer `Range` and `If-Range` as a real file server would, to test
// resumed downloads.
@Test func downloadsAFile() async throws {
    let server = try await MockServer.start()
    let pack = Array(repeating: UInt8(ascii: "x"), count: 100_000)
    server.route("GET", "/pack") { request in .ranged(pack, for: request, etag: "\"v1\"") }

    struct Pack: Endpoint { typealias Response = Data; var path: EndpointPath { "/pack" } }
    let file = FileManager.default.temporaryDirectory.appending(path: "pack-\(UUID()).bin")
    _ = try await Client(baseURL: server.baseURL).download(Pack(), to: file)
    #expect(try Data(contentsOf: file).count == pack.count)

    try? FileManager.default.removeItem(at: file)
    try await server.shutdown()
}
// snippet.end

// snippet.stub
// StubTransport answers from a closure, for pipeline logic that needs no socket:
// status validation, envelopes, decoding, middlewares.
@Test func decodesWithAStub() async throws {
    let stub = StubTransport.answering(body: #"[{"id": 2, "title": "Stubbed"}]"#)
    let news = NewsService(client: Client(baseURL: URL(string: "https://api.example.com")!, transport: stub))
    #expect(try await news.latest().first?.title == "Stubbed")
    #expect(stub.requests.first?.request.path == "/articles?limit=20")
}
// snippet.end

// snippet.clock
// ManualClock: retries wait on a clock you advance, so a test of backoff never sleeps.
@Test func retriesAfterAnOutage() async throws {
    let server = try await MockServer.start()
    server.route("GET", "/articles", script: [.retryAfter(seconds: 5), .json("[]")])
    let clock = ManualClock()
    let client = Client(baseURL: server.baseURL, middlewares: [RetryMiddleware(clock: clock)])

    async let articles = NewsService(client: client).latest()
    await clock.waitForSleepers()
    #expect(clock.sleeps == [.seconds(5)])          // Retry-After, honoured
    clock.advance(by: .seconds(5))
    #expect(try await articles.isEmpty)

    try await server.shutdown()
}
// snippet.end

// snippet.logs
// LogRecorder keeps what Courier logged, to check it, and that secrets stay out of it.
@Test func logsWithoutSecrets() async throws {
    let log = LogRecorder()
    let stub = StubTransport.answering(body: "[]")
    let client = Client(baseURL: URL(string: "https://api.example.com")!, transport: stub,
                        middlewares: [LoggingMiddleware(logger: log.logger)]) {
        $0.defaultHeaders[.authorization] = "Bearer secret"
    }
    _ = try await NewsService(client: client).latest()
    #expect(!log.messages.isEmpty)
    #expect(!log.messages.contains { $0.contains("secret") })
}
// snippet.end
