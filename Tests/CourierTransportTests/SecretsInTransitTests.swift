import Courier
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// Secrets that an app's own middleware adds never reach another origin, and no error text,
/// reflection or kept header shows a secret, on every transport. Two loopback origins:
/// 127.0.0.1 and 127.0.0.2.
@Suite(.serialized) struct SecretsInTransitTests {
    /// An app's own middleware that adds an API key to every request, and notes whether it saw a
    /// hop that left the call's origin.
    struct APIKeyMiddleware: ClientMiddleware {
        let crossOriginHops = Locked(0)
        func intercept(
            _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
            next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
        ) async throws -> (HTTPResponse, HTTPBody?) {
            if RequestContext.current?.isCrossOriginHop == true { crossOriginHops.withLock { $0 += 1 } }
            var request = request
            request.headerFields[HTTPField.Name("X-Api-Key")!] = "app-key-123"
            return try await next(request, body, baseURL)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aKeyThatTheAppsMiddlewareAddsAgainStaysAtItsOrigin(kind: TransportKind) async throws {
        let api = try await MockServer.start(host: "127.0.0.1")
        let other = try await MockServer.start(host: "127.0.0.2")
        defer { Task { try? await api.shutdown(); try? await other.shutdown() } }
        api.route("GET", "/go", respond: .status(302, headers: [MockHeader("Location", other.url("/target").absoluteString)]))
        other.route("GET", "/target", respond: .json("{}"))
        let signing = APIKeyMiddleware()
        let client = Client(baseURL: api.baseURL, transport: kind.make(), middlewares: [signing])

        _ = try await client.send(Call<JSON>(path: "/go", headers: [.authorization: "Bearer app-token"]))

        #expect(api.lastRequest?.header("X-Api-Key") == "app-key-123")
        let arrived = try #require(other.lastRequest)
        #expect(arrived.header("X-Api-Key") == nil, "the key reached another origin")
        #expect(arrived.header("Authorization") == nil)
        #expect(signing.crossOriginHops.current == 1, "the app's middleware can tell the hop left")
    }

    /// A header named only in the client's own secret list stays at its origin too.
    @Test(arguments: TransportKind.allCases)
    func aFieldOfTheClientsListStaysAtItsOrigin(kind: TransportKind) async throws {
        let api = try await MockServer.start(host: "127.0.0.1")
        let other = try await MockServer.start(host: "127.0.0.2")
        defer { Task { try? await api.shutdown(); try? await other.shutdown() } }
        api.route("GET", "/go", respond: .status(307, headers: [MockHeader("Location", other.url("/target").absoluteString)]))
        other.route("GET", "/target", respond: .json("{}"))
        let client = Client(baseURL: api.baseURL, transport: kind.make()) { $0.redaction.headerNames.insert("x-tenant-secret") }
        _ = try await client.send(Call<JSON>(path: "/go", headers: [HTTPField.Name("X-Tenant-Secret")!: "t-1"]))
        #expect(api.lastRequest?.header("X-Tenant-Secret") == "t-1")
        #expect(other.lastRequest?.header("X-Tenant-Secret") == nil)
    }

    /// A server that is down: the error's description, debug description and reflection never
    /// show the query item's value, on either transport (URLSession's `URLError` holds the URL).
    @Test(arguments: TransportKind.allCases)
    func anErrorNeverShowsASecretQueryItem(kind: TransportKind) async throws {
        let server = try await MockServer.start()
        let baseURL = server.baseURL
        try await server.shutdown()
        let client = Client(baseURL: baseURL, transport: kind.make()) { $0.timeout = .seconds(20) }
        let error = try #require(await #expect(throws: CourierError.self) {
            _ = try await client.send(Call<JSON>(path: "/items", parameters: ["api_key": "qk-77-secret", "page": 2]))
        })
        var dumped = ""
        dump(error, to: &dumped)
        for text in [String(describing: error), String(reflecting: error), dumped, error.detail, error.request?.url ?? "",
                     error.underlying.map { String(describing: $0) } ?? ""]
        {
            #expect(!text.contains("qk-77-secret"), "\(text)")
        }
        #expect(String(describing: error).contains("api_key=REDACTED"))
    }

    /// A failed status: the kept response headers show `REDACTED` for secrets, even 200 `Set-Cookie` lines.
    @Test(arguments: TransportKind.allCases)
    func anErrorsResponseHeadersHideSecrets(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            let cookies = (0..<200).map { MockHeader("Set-Cookie", "session-\($0)=sc-secret-\($0)") }
            server.route("GET", "/fail", respond: .json(#"{"message":"nope"}"#, status: 500, headers: cookies))
            let error = try #require(await #expect(throws: CourierError.self) { _ = try await client.send(Call<JSON>(path: "/fail")) })
            let kept = try #require(error.responseHeaders)
            #expect(!kept[values: .setCookie].isEmpty)
            #expect(kept[values: .setCookie].allSatisfy { $0 == "REDACTED" })
            var dumped = ""
            dump(error, to: &dumped)
            #expect(!dumped.contains("sc-secret"))
            #expect(!String(describing: error).contains("sc-secret"))
        }
    }

    /// A redirect whose `Location` carries a secret query item back: the error names the hop redacted.
    @Test(arguments: TransportKind.allCases)
    func aRedirectErrorHidesTheSecretInItsLocation(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("GET", "/loop", respond: .status(302, headers: [MockHeader("Location", "/loop?token=lt-secret-9")]))
            let error = try #require(await #expect(throws: CourierError.self) { _ = try await client.send(Call<JSON>(path: "/loop")) })
            #expect(error.kind == .redirect)
            var dumped = ""
            dump(error, to: &dumped)
            #expect(!String(describing: error).contains("lt-secret-9"), "\(error)")
            #expect(!dumped.contains("lt-secret-9"))
        }
    }

    /// A download is written to a file readable by its owner only, while it arrives and after.
    @Test(arguments: TransportKind.allCases)
    func aDownloadedFileIsItsOwnersAlone(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("GET", "/report.bin", respond: .bytes(transferBytes, contentType: "application/octet-stream"))
            try await withFolder { folder in
                let destination = folder.appendingPathComponent("report.bin")
                _ = try await client.download(Download(), to: destination)
                let permissions = try FileManager.default.attributesOfItem(atPath: destination.path)[.posixPermissions] as? Int
                #expect(permissions == 0o600)
            }
        }
    }

    private struct Download: Endpoint {
        typealias Response = Data
        var path: EndpointPath { "/report.bin" }
    }
}
