import Courier
import Foundation

/// A transport that answers from a closure instead of the network, for tests of pure pipeline logic.
///
/// Responses still go through the client's whole pipeline: middlewares, status validation,
/// envelopes, decoding. For end-to-end behaviour, test against ``MockServer`` over a socket.
public struct StubTransport: ClientTransport {
    /// Produces the response for one request and its body bytes.
    public typealias Handler = @Sendable (_ request: HTTPRequest, _ body: Data) async throws -> (HTTPResponse, Data)

    private let handler: Handler
    private let log = StubLog()

    /// Creates a transport answering with `handler`.
    public init(_ handler: @escaping Handler) {
        self.handler = handler
    }

    /// A transport that answers every request with the same status, header fields and body text.
    public static func answering(_ status: HTTPResponse.Status = .ok, headers: HTTPFields = [.contentType: "application/json"], body: String) -> StubTransport {
        StubTransport { _, _ in (HTTPResponse(status: status, headerFields: headers), Data(body.utf8)) }
    }

    /// The largest request body a stub records (it keeps every body in memory).
    public static let requestBodyLimit = 64 << 20

    /// The requests received so far, with their bodies, oldest first.
    public var requests: [(request: HTTPRequest, body: Data)] { log.entries.current }

    /// Records the request and answers it with the handler.
    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        let bytes = try await gatherRequestBody(body, limit: Self.requestBodyLimit) ?? Data()
        log.entries.withLock { $0.append((request, bytes)) }
        let (response, responseBody) = try await handler(request, bytes)
        return (response, HTTPBody(responseBody))
    }
}

/// The shared record of a stub's requests (a class, so copies of the transport share it).
final class StubLog: Sendable {
    let entries = Locked<[(request: HTTPRequest, body: Data)]>([])
}
