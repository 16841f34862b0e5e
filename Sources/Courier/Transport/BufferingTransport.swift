import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A transport that delivers whole responses itself: the body read into memory within the call's
/// deadline and size limit.
///
/// The client calls ``exchange(_:body:baseURL:operationID:)`` instead of `send` when it needs
/// the whole body anyway (every call through ``Client`` does), which saves wrapping the bytes in an
/// `HTTPBody` stream and collecting them again, and it skips its own timer, a task group with two
/// child tasks per attempt that costs more CPU than the rest of the client together.
///
/// Both of Courier's transports conform; any other `ClientTransport` gets the client's timer and
/// body collection.
public protocol BufferingTransport: ClientTransport {
    /// Sends one request and returns the response with its whole body.
    ///
    /// Fails with ``CourierError/Kind/timedOut`` once ``RequestContext/timeout`` of
    /// ``RequestContext/current`` has passed since the call began, whether the head or the body is
    /// late; with ``CourierError/Kind/bodyTooLarge`` past ``RequestContext/maximumBodySize``; and
    /// honours task cancellation.
    func exchange(_ request: HTTPRequest, body: Data?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, Data)
}

extension BufferingTransport {
    /// Sends one request through ``exchange(_:body:baseURL:operationID:)`` and hands the body back as a stream.
    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        let bytes: Data? = if let body { try await Data(collecting: body, upTo: .max) } else { nil }
        let (head, data) = try await exchange(request, body: bytes, baseURL: baseURL, operationID: operationID)
        return (head, HTTPBody(data))
    }
}
