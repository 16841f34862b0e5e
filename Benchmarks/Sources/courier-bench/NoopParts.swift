import Courier
import Foundation

/// A transport that answers at once with a fixed response: the client's own cost, without a network.
/// A plain `ClientTransport` (only Courier's own transports bound an attempt themselves), so the
/// client runs its own timer and collects the body stream, as for any app's transport.
struct NoopTransport: ClientTransport {
    var status: HTTPResponse.Status = .ok
    var body: Data

    func send(_ request: HTTPRequest, body _: HTTPBody?, baseURL _: URL, operationID _: String) async throws -> (HTTPResponse, HTTPBody?) {
        (HTTPResponse(status: status, headerFields: [.contentType: "application/json"]), HTTPBody(body))
    }
}

/// A middleware that only calls `next`.
struct NoopMiddleware: ClientMiddleware {
    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        try await next(request, body, baseURL)
    }
}

/// An endpoint that returns the raw bytes (no decoding cost), for timing the call path alone.
struct RawEndpoint: Endpoint {
    typealias Response = Data
    var path: EndpointPath { "/raw" }
}
