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
/// (two `Set-Cookie` lines stay two), skips names that are not valid tokens, streams the body to the
/// client (which bounds it), gives each request its endpoint's deadline, and throws ``CourierError``.
/// It is not a ``DeadlineEnforcingTransport``: AsyncHTTPClient's `deadline:` bounds the head but not
/// the streamed body, so the client's own timer still covers the whole response.
public struct AsyncHTTPClientTransport: ClientTransport {
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

    /// Sends one request; the response body streams back as the server sends it.
    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        var outgoing = HTTPClientRequest(url: baseURL.absoluteString(appendingRequestPath: request.path))
        outgoing.method = HTTPMethod(rawValue: request.method.rawValue)
        outgoing.headers.reserveCapacity(request.headerFields.count)
        for field in request.headerFields {
            outgoing.headers.add(name: field.name.rawName, value: field.value)
        }
        if let body {
            let bytes = try await [UInt8](collecting: body, upTo: .max)
            outgoing.body = .bytes(ByteBuffer(bytes: bytes))
        }
        let timeout = RequestContext.current?.timeout ?? .seconds(60)
        let response: HTTPClientResponse
        do {
            response = try await client.execute(outgoing, deadline: .now() + TimeAmount(timeout), logger: nil)
        } catch {
            throw AsyncHTTPClientTransport.map(error)
        }
        return (try makeResponse(response), makeBody(response))
    }

    private func makeResponse(_ response: HTTPClientResponse) throws -> HTTPResponse {
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

    private func makeBody(_ response: HTTPClientResponse) -> HTTPBody {
        let length: HTTPBody.Length =
            response.headers.first(name: "content-length").flatMap(Int64.init).map { .known($0) } ?? .unknown
        let chunks = ResponseChunks(body: response.body)
        return HTTPBody(chunks, length: length, iterationBehavior: .single)
    }
}

/// AsyncHTTPClient's body as `HTTPBody` chunks, with its errors mapped to ``CourierError``.
struct ResponseChunks: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk
    let body: HTTPClientResponse.Body

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: HTTPClientResponse.Body.AsyncIterator

        mutating func next() async throws -> HTTPBody.ByteChunk? {
            do {
                guard let buffer = try await base.next() else { return nil }
                return HTTPBody.ByteChunk(buffer.readableBytesView)
            } catch {
                throw AsyncHTTPClientTransport.map(error)
            }
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: body.makeAsyncIterator()) }
}

extension TimeAmount {
    /// The same span in NIO's unit, saturating instead of overflowing.
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let limit = Int64.max / 1_000_000_000 - 1
        self = .nanoseconds(min(seconds, limit) * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
