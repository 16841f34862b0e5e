import AsyncHTTPClient
import Courier
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import OpenAPIRuntime

/// Sends requests with AsyncHTTPClient: the fast transport for Linux and servers.
///
/// Courier's own rather than swift-openapi-async-http-client's, which (1.5.0) merges repeated
/// response header fields and force-unwraps header names. This one appends every field as it came
/// (two `Set-Cookie` lines stay two), skips names that are not valid tokens, and throws
/// `CourierError`. Bodies stream both ways with backpressure, and the call's timeout bounds the
/// whole response, head and body, on the event loop.
///
/// On Apple platforms AsyncHTTPClient runs on Network.framework; an ordinary watchOS app gets no
/// such low-level networking, so use `URLSessionTransport` there.
public struct AsyncHTTPClientTransport: CourierTransport {
    /// The client requests run on (a pinned host's go through a client of their own, see ``init(trust:configuration:)``).
    public let client: HTTPClient
    /// The clients of a transport made with a ``ServerTrust``, which it owns.
    private let trusted: TrustedClients?
    /// Who decodes gzip and deflate bodies, if anyone: a decoded response loses its
    /// `Content-Encoding` and `Content-Length`, which describe bytes nobody reads.
    let decoding: ResponseDecoding

    enum ResponseDecoding {
        /// Bodies pass as they came.
        case none
        /// The transport asks for compressed bodies and decodes them as they are read.
        case byTransport
        /// The client's own configuration (`decompression` enabled) decodes them.
        case byClient
    }

    /// Creates a transport over an `HTTPClient` you own (and shut down); create it with
    /// ``recommendedConfiguration``, or at least without following redirects.
    /// - Parameters:
    ///   - client: The client.
    ///   - decodesResponses: Whether the transport asks for gzip and deflate bodies and decodes
    ///     them itself, within ``decompressionRatioLimit``. Leave the client's own `decompression`
    ///     disabled then (as in ``recommendedConfiguration``), or bodies would be decoded twice.
    public init(client: HTTPClient, decodesResponses: Bool = false) {
        self.init(client: client, trusted: nil, decoding: decodesResponses ? .byTransport : .none)
    }

    init(client: HTTPClient, trusted: TrustedClients?, decoding: ResponseDecoding) {
        self.client = client
        self.trusted = trusted
        self.decoding = decoding
    }

    /// Creates a transport over ``sharedClient``, which lives as long as the process.
    public init() {
        self.init(client: Self.sharedClient, decodesResponses: true)
    }

    /// A process-wide client with ``recommendedConfiguration``.
    public static let sharedClient = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: recommendedConfiguration)

    /// The configuration Courier expects of an `HTTPClient`: redirects are not followed (the
    /// `Client` follows them, so credentials never reach another origin and the cache sees each
    /// hop), a failed connect fails at once (retries are a middleware's job, and offline must be
    /// reported fast; on Apple platforms Network.framework does not wait for connectivity),
    /// 10 s connect timeout, and AsyncHTTPClient's own decompression off: the transport decodes
    /// gzip and deflate itself (see ``init(client:decodesResponses:)``), because AsyncHTTPClient's
    /// decoder on an HTTP/2 stream lets a large body pile up in memory (a 1 GiB download held
    /// ~950 MB). Start from it when you create your own client.
    public static var recommendedConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.decompression = .disabled
        configuration.redirectConfiguration = .disallow
        configuration.connectionPool.retryConnectionEstablishment = false
        // Apple's default group stays Network.framework's (it follows Wi-Fi/cellular changes and VPN on
        // demand, which a POSIX group would not); it fails a refused or offline connect at once.
        configuration.networkFrameworkWaitForConnectivity = false
        configuration.timeout.connect = .seconds(10)
        return configuration
    }

    /// How many times its compressed size a body may grow while decoded: a decompression bomb
    /// (1 GB of zeros in 1 MB) stops early, ordinary JSON (10–50×) passes.
    public static let decompressionRatioLimit = 200

    /// Request bodies up to this size are gathered into one buffer (and can be sent again); larger
    /// ones, or of unknown length, stream.
    static let gatheredBodyLimit = 1 << 20

    /// Sends one request; the response body streams as it arrives.
    ///
    /// AsyncHTTPClient's delegate API takes a deadline for the whole response (its async API's
    /// bounds only the head), so a slow body fails with `CourierError.Kind.timedOut` at the same
    /// moment a slow head would.
    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        try await sendOutsideClient(request, body: body, baseURL: baseURL)
    }

    /// Sends one attempt of a call; see ``send(_:body:baseURL:operationID:)``.
    package func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, attempt: TransportAttempt) async throws -> Answer {
        let limit = attempt.timeLimit
        let (outgoing, replayable) = try await makeRequest(request, body: body, baseURL: baseURL)
        do {
            return try await start(outgoing, method: request.method, hasBody: body != nil, limit: limit)
        } catch where replayable && request.method.isIdempotent && Self.isClosedBeforeAnswering(error) && !Task.isCancelled {
            // A pooled connection the server closed just as the request went out gave no answer at
            // all: the request goes once more, on a new connection (not a retry).
            do { return try await start(outgoing, method: request.method, hasBody: body != nil, limit: limit) } catch { throw Self.map(error, limit: limit, host: baseURL.host) }
        } catch {
            throw Self.map(error, limit: limit, host: baseURL.host)
        }
    }

    /// Starts the request and waits for the head; the body follows through the stream.
    ///
    /// A transfer has no deadline for the whole response: its stream fails once no bytes went
    /// either way for the timeout (an idle timeout), so a long healthy download goes on.
    ///
    /// A request with a body gets a backstop at its deadline (see `ResponseStream`).
    private func start(
        _ request: HTTPClient.Request, method: HTTPRequest.Method, hasBody: Bool, limit: TimeLimit
    ) async throws -> Answer {
        let stream = ResponseStream(
            waitsForSmallBodies: limit.deadline != nil, backstop: hasBody ? limit.deadline : nil, idleLimit: limit.idle)
        // AsyncHTTPClient's default event loop preference: pinning the delegate and the connection to
        // one loop saves a thread hop but opens a connection per loop (StaleConnectionTests).
        let client = trusted?.client(for: request.url.host) ?? client
        let task = client.execute(request: request, delegate: stream, deadline: limit.deadline.map { .now() + TimeAmount($0.remaining) })
        stream.attach(task)
        let head = try await stream.head()
        var response = try Self.makeResponse(head)
        // A HEAD's, 204's or 304's Content-Length describes another response's body, not this one's.
        let responseHasBody = method != .head && response.status != .noContent && response.status != .notModified
        let announced = responseHasBody ? response.headerFields[.contentLength].flatMap(Int64.init) : nil
        let length: HTTPBody.Length = announced.map { .known($0) } ?? .unknown
        let body = HTTPBody(ResponseBodyChunks(stream, limit: limit), length: length, iterationBehavior: .single)
        guard decoding != .none, responseHasBody, let format = ContentDecoding.coding(of: response.headerFields[.contentEncoding]) else {
            return Answer(response: response, body: body)
        }
        response.headerFields[.contentEncoding] = nil
        response.headerFields[.contentLength] = nil
        guard decoding == .byTransport else { return Answer(response: response, body: body) }
        return Answer(response: response, body: ContentDecoding.decoded(body, format: format, ratioLimit: Self.decompressionRatioLimit))
    }

    /// Whether a request failed because its connection closed before any answer came.
    static func isClosedBeforeAnswering(_ error: any Error) -> Bool {
        switch error {
        case let error as HTTPClientError: error == .remoteConnectionClosed
        case let error as ChannelError: error == .ioOnClosedChannel || error == .eof || error == .outputClosed
        case let error as IOError: CourierError.kind(forErrno: error.errnoCode) == .connectionLost
        case let error as HTTPParserError: error == .invalidEOFState
        default: NetworkFailure(error)?.isClosedBeforeAnswering ?? false
        }
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
