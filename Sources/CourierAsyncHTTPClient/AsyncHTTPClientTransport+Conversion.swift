import AsyncHTTPClient
import Courier
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import OpenAPIRuntime

/// Courier's requests in AsyncHTTPClient's terms, and its response heads in Courier's.
extension AsyncHTTPClientTransport {
    /// The AsyncHTTPClient request for an HTTP request relative to `baseURL`, and whether it can be
    /// sent again (its body, if any, gathered in memory).
    package func makeRequest(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL) async throws -> (HTTPClient.Request, replayable: Bool) {
        var headers = HTTPHeaders()
        headers.reserveCapacity(request.headerFields.count + 1)
        for field in request.headerFields {
            headers.add(name: field.name.rawName, value: field.value)
        }
        if request.headerFields[.acceptEncoding] == nil {
            // A range (a resumed download, a part) counts bytes of the representation as stored: never a compressed one.
            if request.headerFields[.range] != nil {
                headers.add(name: "Accept-Encoding", value: "identity")
            } else if decoding == .byTransport {
                headers.add(name: "Accept-Encoding", value: "gzip, deflate")
            }
        }
        let (outgoing, replayable) = try await makeBody(body)
        do {
            let url = baseURL.absoluteString(appendingRequestPath: request.path)
            return (try HTTPClient.Request(url: url, method: HTTPMethod(rawValue: request.method.rawValue), headers: headers, body: outgoing), replayable)
        } catch {
            throw Self.map(error)
        }
    }

    /// A small body of known length gathered into one buffer; any other streamed as it is read.
    func makeBody(_ body: HTTPBody?) async throws -> (HTTPClient.Body?, replayable: Bool) {
        guard let body else { return (nil, true) }
        if case .known(let length) = body.length, length <= Self.gatheredBodyLimit {
            var buffer = ByteBuffer()
            buffer.reserveCapacity(Int(length))
            let mismatch = { (count: Int) in
                CourierError(.invalidRequest, detail: "The request body gave \(count) bytes, not the \(length) it announced")
            }
            for try await chunk in body {
                // A body longer than announced stops here, not when memory runs out.
                guard buffer.readableBytes + chunk.count <= length else { throw mismatch(buffer.readableBytes + chunk.count) }
                buffer.writeBytes(chunk)
            }
            // Cut short by a cancelled read, or shorter than announced: never sent as if whole.
            try Task.checkCancellation()
            guard buffer.readableBytes == length else { throw mismatch(buffer.readableBytes) }
            return (.byteBuffer(buffer), true)
        }
        let length: Int64? = if case .known(let length) = body.length { length } else { nil }
        let eventLoop = client.eventLoopGroup.any()
        let streamed = HTTPClient.Body.stream(contentLength: length) { writer in
            let written = eventLoop.makePromise(of: Void.self)
            written.completeWithTask {
                for try await chunk in body { try await writer.write(.byteBuffer(ByteBuffer(bytes: chunk))).get() }
            }
            return written.futureResult
        }
        return (streamed, false)
    }

    static func makeResponse(_ response: HTTPResponseHead) throws -> HTTPResponse {
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
