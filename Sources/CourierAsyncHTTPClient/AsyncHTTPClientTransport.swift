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
/// ``CourierError``. It enforces the call's timeout on the whole response, head and body (a
/// ``BufferingTransport``), and reads the body up to the client's size limit.
public struct AsyncHTTPClientTransport: BufferingTransport {
    /// The client requests run on.
    public let client: HTTPClient

    /// Creates a transport over an `HTTPClient` you own (and shut down); create it with
    /// ``recommendedConfiguration``, or at least without following redirects.
    public init(client: HTTPClient) {
        self.client = client
    }

    /// Creates a transport over ``sharedClient``, which lives as long as the process.
    public init() {
        self.init(client: Self.sharedClient)
    }

    /// A process-wide client with ``recommendedConfiguration``.
    public static let sharedClient = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: recommendedConfiguration)

    /// The configuration Courier expects of an `HTTPClient`: redirects are not followed (the
    /// ``Client`` follows them, so credentials never reach another origin and the cache sees each
    /// hop), a failed connect fails at once (retries are a middleware's job, and offline must be
    /// reported fast), 10 s connect timeout. Start from it when you create your own client.
    public static var recommendedConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(10)
        return configuration
    }

    /// Sends one request and returns the response with its whole body.
    ///
    /// `execute(_:deadline:)` bounds the head (and honours cancellation) but lets a slow body
    /// stream past the deadline, so the body is read in a task of its own that Courier's
    /// ``DeadlineTimer`` cancels when the time is up. That task starts on this thread: a body that
    /// has already arrived (most small responses) is read without suspending, and then no timer is
    /// set and no other thread is woken.
    public func exchange(_ request: HTTPRequest, body: Data?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, Data) {
        let call = prepare(request, body: body, baseURL: baseURL)
        let response: HTTPClientResponse
        do {
            response = try await execute(call.request, deadline: call.deadline, idempotent: Self.isIdempotent(request.method))
        } catch {
            throw AsyncHTTPClientTransport.map(error)
        }
        return try await Self.read(response, deadline: call.deadline, timeout: call.timeout, limit: call.limit)
    }

    /// The response head. A pooled connection the server closed just as the request went out gave
    /// no answer at all, so an idempotent request is sent once more, on a new connection (not a retry).
    private func execute(_ request: HTTPClientRequest, deadline: NIODeadline, idempotent: Bool) async throws -> HTTPClientResponse {
        do {
            return try await client.execute(request, deadline: deadline, logger: nil)
        } catch where idempotent && Self.isClosedBeforeAnswering(error) && !Task.isCancelled {
            return try await client.execute(request, deadline: deadline, logger: nil)
        }
    }

    /// Whether a request failed because its connection closed before any answer came.
    static func isClosedBeforeAnswering(_ error: any Error) -> Bool {
        switch error {
        case let error as HTTPClientError: error == .remoteConnectionClosed
        case let error as ChannelError: error == .ioOnClosedChannel || error == .eof || error == .outputClosed
        case let error as IOError: error.errnoCode == ECONNRESET || error.errnoCode == EPIPE
        case let error as HTTPParserError: error == .invalidEOFState
        default: false
        }
    }

    /// Methods that may be sent twice (RFC 9110 §9.2.2).
    static func isIdempotent(_ method: HTTPRequest.Method) -> Bool {
        [.get, .head, .put, .delete, .options, .trace].contains(method)
    }

    /// The outgoing request and the bounds the context sets for it.
    ///
    /// Not inlined into ``exchange(_:body:baseURL:operationID:)``: building the request's temporaries
    /// then stay on the thread's stack instead of in the exchange's async frame.
    @inline(never)
    private func prepare(_ request: HTTPRequest, body: Data?, baseURL: URL) -> (request: HTTPClientRequest, deadline: NIODeadline, timeout: Duration, limit: Int) {
        let context = RequestContext.current
        let timeout = context?.timeout ?? .seconds(60)
        return (makeRequest(request, body: body, baseURL: baseURL), NIODeadline.now() + TimeAmount(timeout), timeout, context?.maximumBodySize ?? .max)
    }

    /// The head as an `HTTPResponse` and the whole body, read by `deadline` and within `limit` bytes.
    package static func read(
        _ response: HTTPClientResponse, deadline: NIODeadline, timeout: Duration, limit: Int
    ) async throws -> (HTTPResponse, Data) {
        let head = try makeResponse(response)

        // What the body task reads, whether it finished without suspending, and whether the timer
        // fired: one box that the task's closure captures alone, so the closure needs no context of its own.
        let progress = Locked(BodyProgress(response: response, limit: limit))
        // Detached: reading bytes needs none of the caller's task-local values, so none are copied.
        let reading = Task.startingImmediately(detached: true) {
            let (response, limit) = progress.withLock { ($0.response, $0.limit) }
            let data = try await collect(response, limit: limit)
            progress.withLock { $0.finished = true }
            return data
        }
        do {
            // The common case: the body was already in memory and the task is done. There is
            // nothing left to time out or cancel, and `value` does not suspend.
            if progress.withLock({ $0.finished }) { return (head, try await reading.value) }

            let timer = DeadlineTimer.shared.schedule(after: .nanoseconds(max(0, (deadline - .now()).nanoseconds))) {
                progress.withLock { $0.timedOut = true }
                reading.cancel()
            }
            defer { timer.cancel() }
            let data = try await withTaskCancellationHandler {
                try await reading.value
            } onCancel: {
                reading.cancel()
            }
            return (head, data)
        } catch {
            if progress.withLock({ $0.timedOut }) { throw CourierError(.timedOut, detail: "No complete response within \(timeout)") }
            throw AsyncHTTPClientTransport.map(error)
        }
    }

    /// The AsyncHTTPClient request for an HTTP request relative to `baseURL`.
    package func makeRequest(_ request: HTTPRequest, body: Data?, baseURL: URL) -> HTTPClientRequest {
        var outgoing = HTTPClientRequest(url: baseURL.absoluteString(appendingRequestPath: request.path))
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        outgoing.headers.reserveCapacity(request.headerFields.count)
        for field in request.headerFields {
            outgoing.headers.add(name: field.name.rawName, value: field.value)
        }
        if let body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        return outgoing
    }

    /// Reads the body into one `Data` (one copy of each chunk), failing past `limit` bytes.
    private static func collect(_ response: HTTPClientResponse, limit: Int) async throws -> Data {
        let announced = response.headers.first(name: "content-length").flatMap(Int.init)
        var accumulator = try BodyAccumulator(limit: limit, announcedLength: announced)
        for try await chunk in response.body { try accumulator.append(chunk.readableBytesView) }
        return accumulator.data
    }

    private static func makeResponse(_ response: HTTPClientResponse) throws -> HTTPResponse {
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

/// The body task's input and progress, shared with the caller and the timer.
private struct BodyProgress {
    let response: HTTPClientResponse
    let limit: Int
    var finished = false
    var timedOut = false
}

extension TimeAmount {
    /// The same span in NIO's unit, saturating instead of overflowing.
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let limit = Int64.max / 1_000_000_000 - 1
        self = .nanoseconds(min(seconds, limit) * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
