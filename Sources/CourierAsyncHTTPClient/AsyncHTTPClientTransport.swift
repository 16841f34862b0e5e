import AsyncHTTPClient
import Courier
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import OpenAPIRuntime

/// Sends requests with AsyncHTTPClient: the fast transport for Linux and servers.
///
/// Courier's own rather than swift-openapi-async-http-client's, which (1.5.0) merges repeated
/// response header fields and force-unwraps header names. This one appends every field as it came
/// (two `Set-Cookie` lines stay two), skips names that are not valid tokens, and throws
/// ``CourierError``. It enforces the call's timeout on the whole response, head and body, on
/// AsyncHTTPClient's event loop (a ``DeadlineEnforcingTransport``), so the client needs no timer
/// task of its own, and it reads the body up to the client's size limit.
public struct AsyncHTTPClientTransport: DeadlineEnforcingTransport {
    /// The client requests run on.
    public let client: HTTPClient

    /// Creates a transport over an `HTTPClient` you own (and shut down).
    public init(client: HTTPClient) {
        self.client = client
    }

    /// Creates a transport over ``sharedClient``, which lives as long as the process.
    public init() {
        self.init(client: Self.sharedClient)
    }

    /// A process-wide client tuned for Courier: a failed connect fails at once (retries are a
    /// middleware's job, and offline must be reported fast), 10 s connect timeout.
    public static let sharedClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(10)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// The largest body AsyncHTTPClient can buffer: 4 GiB.
    static let largestBody = Int(UInt32.max)

    /// Sends one request and returns the response with its whole body.
    ///
    /// The delegate-based API is used rather than `execute(_:deadline:)` because its deadline covers
    /// the body too (the async API's stops at the head) and it buffers the body with a limit.
    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        let context = RequestContext.current
        var headers = HTTPHeaders()
        headers.reserveCapacity(request.headerFields.count)
        for field in request.headerFields {
            headers.add(name: field.name.rawName, value: field.value)
        }
        let outgoing: HTTPClient.Request
        do {
            var payload: HTTPClient.Body?
            if let body { payload = .bytes(try await [UInt8](collecting: body, upTo: .max)) }
            outgoing = try HTTPClient.Request(
                url: baseURL.absoluteString(appendingRequestPath: request.path),
                method: HTTPMethod(rawValue: request.method.rawValue), headers: headers, body: payload
            )
        } catch {
            throw AsyncHTTPClientTransport.map(error)
        }
        let timeout = context?.timeout ?? .seconds(60)
        // ResponseAccumulator traps above 2^32 bytes (a ByteBuffer's limit): clamp, never pass it more.
        let limit = min(context?.maximumBodySize ?? Self.largestBody, Self.largestBody)
        let accumulator = ResponseAccumulator(request: outgoing, maxBodySize: limit)
        let task = client.execute(request: outgoing, delegate: accumulator, deadline: .now() + TimeAmount(timeout))
        let response: HTTPClient.Response
        do {
            response = try await withTaskCancellationHandler {
                try await task.futureResult.get()
            } onCancel: {
                task.cancel()
            }
        } catch {
            throw AsyncHTTPClientTransport.map(error)
        }
        return (try makeResponse(response), response.body.map { HTTPBody($0.readableBytesView) } ?? HTTPBody())
    }

    private func makeResponse(_ response: HTTPClient.Response) throws -> HTTPResponse {
        let code = Int(response.status.code)
        guard (100...999).contains(code) else {
            throw CourierError(.invalidResponse, detail: "Status code \(code) is not valid HTTP")
        }
        var fields = HTTPFields()
        fields.reserveCapacity(response.headers.count)
        for (name, value) in response.headers {
            // A name that is not a valid token is dropped, never force-unwrapped.
            guard let fieldName = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        return HTTPResponse(status: .init(code: code), headerFields: fields)
    }
}

extension TimeAmount {
    /// The same span in NIO's unit, saturating instead of overflowing.
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let limit = Int64.max / 1_000_000_000 - 1
        self = .nanoseconds(min(seconds, limit) * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
