import Courier
import CourierTesting
import Foundation
import Testing

/// The chain is folded into one function when a client is made; changing the client's transport,
/// middlewares or configuration folds it again, and a copy keeps the chain it was made with.
@Suite struct ChainFoldTests {
    /// A plain `ClientMiddleware` that marks each request it passes on.
    private struct Marker: ClientMiddleware {
        func intercept(
            _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
            next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
        ) async throws -> (HTTPResponse, HTTPBody?) {
            var request = request
            if let name = HTTPField.Name("X-Marked") { request.headerFields[name] = "yes" }
            return try await next(request, body, baseURL)
        }
    }

    /// Redirects `/items` to `/moved`, answers anything else.
    private static func redirecting() -> StubTransport {
        StubTransport { request, _ in
            request.path?.hasSuffix("/items") == true
                ? (HTTPResponse(status: .found, headerFields: [.location: "https://api.example.com/v1/moved"]), Data())
                : (HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]), Data("{}".utf8))
        }
    }

    @Test func changingAClientFoldsItsChainAgain() async throws {
        let first = Self.redirecting()
        let second = Self.redirecting()
        var client = Client(baseURL: stubBaseURL, transport: first)
        let original = client

        client.transport = second
        _ = try await client.send(TestEndpoint<JSON>())
        #expect(first.requests.isEmpty)
        #expect(second.requests.count == 2, "\(second.requests.map(\.request.path))")

        client.middlewares = [Marker()]
        _ = try await client.send(TestEndpoint<JSON>())
        #expect(second.requests.last?.request.headerFields[HTTPField.Name("X-Marked")!] == "yes")

        client.configuration.maximumRedirects = 0
        let error = await #expect(throws: CourierError.self) { try await client.send(TestEndpoint<JSON>()) }
        #expect(error?.status == .found)
        #expect(second.requests.count == 5, "the 302 came back as it is: no hop")

        _ = try await original.send(TestEndpoint<JSON>())
        #expect(first.requests.count == 2, "a copy keeps its own chain")
        #expect(first.requests.last?.request.headerFields[HTTPField.Name("X-Marked")!] == nil)
    }
}
