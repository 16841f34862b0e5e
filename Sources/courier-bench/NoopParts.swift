import Courier
import Foundation

/// A transport that answers at once with a fixed response: the client's own cost, without a network.
/// Like URLSessionTransport it does not enforce deadlines, so the client runs its own timer around it.
struct NoopTransport: ClientTransport {
    var status: HTTPResponse.Status = .ok
    var body: Data

    func send(_ request: HTTPRequest, body _: HTTPBody?, baseURL _: URL, operationID _: String) async throws -> (HTTPResponse, HTTPBody?) {
        (HTTPResponse(status: status, headerFields: [.contentType: "application/json"]), HTTPBody(body))
    }
}

/// The no-op transport declaring that it enforces deadlines itself, so the client runs no timer.
struct NoopDeadlineTransport: DeadlineEnforcingTransport {
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
