import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// The client follows redirects itself on every transport: credentials stay at their origin, each
/// hop is its own request, and bad redirects fail clearly. Two loopback origins: 127.0.0.1 and 127.0.0.2.
@Suite(.serialized) struct RedirectTests {
    /// The API server, a second origin, and a client with credentials for the API.
    struct Origins {
        let api: MockServer
        let other: MockServer
        let client: Client

        static func start(_ kind: TransportKind, credentials: Credentials) async throws -> Origins {
            let api = try await MockServer.start(host: "127.0.0.1")
            let other = try await MockServer.start(host: "127.0.0.2")
            let store = CredentialStore(credentials)
            let client = Client(baseURL: api.baseURL, transport: kind.make(), middlewares: [CredentialsMiddleware(provider: store)])
            other.route("GET", "/target", respond: .json("{}"))
            api.route("GET", "/target", respond: .json("{}"))
            return Origins(api: api, other: other, client: client)
        }

        func shutdown() async {
            try? await api.shutdown()
            try? await other.shutdown()
        }
    }

    static let credentials: [Credentials] = [.authToken("secret-token", userID: "u1"), .bearer("secret-token", identity: "u1")]

    @Test(arguments: TransportKind.allCases, credentials)
    func aRedirectToAnotherOriginCarriesNoCredentials(kind: TransportKind, credentials: Credentials) async throws {
        let origins = try await Origins.start(kind, credentials: credentials)
        defer { Task { await origins.shutdown() } }
        origins.api.route("GET", "/go", respond: .status(302, headers: [MockHeader("Location", origins.other.url("/target").absoluteString)]))

        let cookie = HTTPField.Name("Cookie") ?? .cookie
        _ = try await origins.client.send(Call<JSON>(path: "/go", headers: [cookie: "session=1", .init("X-Api-Key")!: "k"]))

        let sent = try #require(origins.api.lastRequest)
        #expect(sent.header("X-Auth-Token") == credentials.headers[.xAuthToken])
        #expect(sent.header("Authorization") == credentials.headers[.authorization])
        let arrived = try #require(origins.other.lastRequest)
        #expect(arrived.target == "/target")
        for name in ["Authorization", "X-Auth-Token", "X-User-Id", "Cookie", "X-Api-Key"] {
            #expect(arrived.header(name) == nil, "\(name) reached the other origin")
        }
    }

    /// Withheld from another origin even when the app's ``Redaction`` doesn't name it.
    @Test(arguments: TransportKind.allCases, [false, true])
    func proxyAuthorizationStaysAtItsOrigin(kind: TransportKind, redactsNothing: Bool) async throws {
        let origins = try await Origins.start(kind, credentials: .bearer("secret-token", identity: "u1"))
        defer { Task { await origins.shutdown() } }
        origins.api.route("GET", "/go", respond: .status(307, headers: [MockHeader("Location", origins.other.url("/target").absoluteString)]))
        let client = Client(baseURL: origins.api.baseURL, transport: kind.make()) { configuration in
            if redactsNothing { configuration.redaction.headerNames = [] }
        }

        _ = try await client.send(Call<JSON>(path: "/go", headers: [.proxyAuthorization: "Basic cHJveHk6c2VjcmV0"]))

        #expect(origins.api.lastRequest?.header("Proxy-Authorization") == "Basic cHJveHk6c2VjcmV0")
        let arrived = try #require(origins.other.lastRequest)
        #expect(arrived.target == "/target")
        #expect(arrived.header("Proxy-Authorization") == nil, "Proxy-Authorization reached the other origin")
    }

    @Test(arguments: TransportKind.allCases)
    func aSameOriginRedirectKeepsTheCredentials(kind: TransportKind) async throws {
        let origins = try await Origins.start(kind, credentials: .bearer("secret-token", identity: "u1"))
        defer { Task { await origins.shutdown() } }
        origins.api.route("GET", "/go", respond: .status(301, headers: [MockHeader("Location", "/target")]))
        _ = try await origins.client.send(Call<JSON>(path: "/go"))
        #expect(origins.api.lastRequest?.target == "/target")
        #expect(origins.api.lastRequest?.header("Authorization") == "Bearer secret-token")
    }

    @Test(arguments: TransportKind.allCases)
    func seeOtherTurnsAPostIntoAGetAnd307ResendsTheBody(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("POST", "/submit", respond: .status(303, headers: [MockHeader("Location", "/result")]))
            server.route("GET", "/result", respond: .json("{}"))
            server.route("POST", "/moved", respond: .status(307, headers: [MockHeader("Location", "/new")]))
            server.route("POST", "/new", respond: .json("{}"))

            _ = try await client.send(Call<JSON>(method: .post, path: "/submit", parameters: ["a": 1]))
            let get = try #require(server.lastRequest)
            #expect(get.method == "GET" && get.target == "/result")
            #expect(get.body.isEmpty)
            #expect(get.header("Content-Type") == nil)

            _ = try await client.send(Call<JSON>(method: .post, path: "/moved", parameters: ["a": 1]))
            let post = try #require(server.lastRequest)
            #expect(post.method == "POST" && post.target == "/new")
            #expect(String(decoding: post.body, as: UTF8.self) == #"{"a":1}"#)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func permanentRedirectResendsTheMethodAndBody(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("PUT", "/old", respond: .status(308, headers: [MockHeader("Location", "/new")]))
            server.route("PUT", "/new", respond: .json("{}"))
            _ = try await client.send(Call<JSON>(method: .put, path: "/old", parameters: ["a": 1]))
            let put = try #require(server.lastRequest)
            #expect(put.method == "PUT" && put.target == "/new")
            #expect(String(decoding: put.body, as: UTF8.self) == #"{"a":1}"#)
            #expect(put.header("Content-Type")?.hasPrefix("application/json") == true)
        }
    }

    /// A body sent as a stream can be read once: a redirect that needs it again fails rather than
    /// resending an empty or partial body.
    @Test(arguments: TransportKind.allCases, [307, 308])
    func aRedirectThatNeedsAStreamedBodyAgainFails(kind: TransportKind, status: Int) async throws {
        try await withServer(kind) { server, client in
            server.route("POST", "/upload", respond: .status(status, headers: [MockHeader("Location", "/elsewhere")]))
            server.route("POST", "/elsewhere", respond: .json("{}"))
            let chunks = AsyncStream<ArraySlice<UInt8>> { continuation in
                continuation.yield(ArraySlice("line 1\n".utf8))
                continuation.yield(ArraySlice("line 2\n".utf8))
                continuation.finish()
            }
            let upload = StreamUpload(body: .stream(chunks, contentType: "application/x-ndjson"))
            let error = try #require(await #expect(throws: CourierError.self) { try await client.send(upload) })
            #expect(error.kind == .redirect)
            #expect(error.detail.contains("\(status) redirect needs the request body again"), "\(error.detail)")
            #expect(server.requestCount("/upload") == 1)
            #expect(server.requestCount("/elsewhere") == 0)
        }
    }

    private struct StreamUpload: Endpoint {
        typealias Response = JSON
        var method: HTTPRequest.Method { .post }
        var path: EndpointPath { "/upload" }
        var body: RequestBody?
    }

    @Test(arguments: TransportKind.allCases, [
        ("/bad-location", "not an http or https URL"),
        ("/ftp", "not an http or https URL"),
        ("/loop-a", "loop"),
        ("/far/0", "More than 3 redirects"),
    ])
    func aBadRedirectFailsClearly(kind: TransportKind, redirect: (path: String, reason: String)) async throws {
        let (path, reason) = redirect
        try await withServer(kind, configure: { $0.maximumRedirects = 3 }) { server, client in
            server.route("GET", "/bad-location", respond: .status(302, headers: [MockHeader("Location", "http://[::1")]))
            server.route("GET", "/ftp", respond: .status(301, headers: [MockHeader("Location", "ftp://example.com/file")]))
            server.route("GET", "/loop-a", respond: .status(302, headers: [MockHeader("Location", "/loop-b")]))
            server.route("GET", "/loop-b", respond: .status(302, headers: [MockHeader("Location", "/loop-a")]))
            server.route("GET", "/far/*") { request in
                let next = (Int(request.target.split(separator: "/").last ?? "") ?? 0) + 1
                return .status(302, headers: [MockHeader("Location", "/far/\(next)")])
            }
            let error = try #require(await #expect(throws: CourierError.self) { try await client.send(Call<JSON>(path: EndpointPath(stringLiteral: path))) })
            #expect(error.kind == .redirect)
            #expect(error.detail.contains(reason), "\(error.detail)")
        }
    }

    /// A 3xx without a `Location` (or with an empty one) is the answer, as Fetch and curl return
    /// it: the call fails on its status, with the server's message, and nothing else is requested.
    @Test(arguments: TransportKind.allCases, [false, true])
    func aRedirectWithoutALocationIsTheAnswer(kind: TransportKind, emptyField: Bool) async throws {
        try await withServer(kind) { server, client in
            let headers = emptyField ? [MockHeader("Location", "")] : []
            server.route("GET", "/moved", respond: .json(#"{"message":"moved, no forwarding address"}"#, status: 301, headers: headers))
            let error = try #require(await #expect(throws: CourierError.self) { try await client.send(Call<JSON>(path: "/moved")) })
            #expect(error.status?.code == 301)
            #expect(server.recordedRequests.count == 1)
            // FoundationNetworking drops the body of every 3xx it receives (it expects to follow
            // it), so on Linux URLSession the answer comes without its body.
            if kind == .asyncHTTPClient {
                #expect(error.kind == .server)
                #expect(error.serverMessage == "moved, no forwarding address")
            } else {
                #expect(error.kind == .unacceptableStatus)
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func threeXXComesBackAsIsWhenRedirectsAreOff(kind: TransportKind) async throws {
        try await withServer(kind, configure: { $0.maximumRedirects = 0 }) { server, client in
            server.route("GET", "/go", respond: .status(302, headers: [MockHeader("Location", "/target")]))
            let error = try #require(await #expect(throws: CourierError.self) { try await client.send(Call<JSON>(path: "/go")) })
            #expect(error.status?.code == 302)
            #expect(server.requestCount("/target") == 0)
        }
    }

    /// A middleware list shared with a generated client may list a RedirectMiddleware: then it
    /// alone follows redirects, with its own settings, whatever the client's configuration says.
    @Test(arguments: TransportKind.allCases)
    func aListedRedirectMiddlewareReplacesTheClientsOwnStep(kind: TransportKind) async throws {
        try await withServer(kind, configure: { $0.maximumRedirects = 10 }) { server, _ in
            server.route("GET", "/hop/*") { request in
                let next = (Int(request.target.split(separator: "/").last ?? "") ?? 0) + 1
                return next > 3 ? .json(#"{"arrived":true}"#) : .status(302, headers: [MockHeader("Location", "/hop/\(next)")])
            }
            let listed = Client(baseURL: server.baseURL, transport: kind.make(), middlewares: [RedirectMiddleware(maximumRedirects: 1)])
            let error = try #require(await #expect(throws: CourierError.self) { try await listed.send(Call<JSON>(path: "/hop/0")) })
            #expect(error.kind == .redirect && error.detail.contains("More than 1 redirects"), "\(error.detail)")
            #expect(server.requestCount("/hop/3") == 0, "the client's own step (10 hops) didn't follow them")
            let plain = Client(baseURL: server.baseURL, transport: kind.make())
            #expect(try await plain.send(Call<JSON>(path: "/hop/0"))["arrived"] == true)
        }
    }
}
