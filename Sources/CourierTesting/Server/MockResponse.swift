import Foundation

/// A canned response a ``MockServer`` route answers with, optionally with a ``Fault``.
///
/// The server adds `Content-Length` unless the headers already carry `Content-Length` or
/// `Transfer-Encoding`, or the status never has a body (1xx, 204, 304).
public struct MockResponse: Sendable {
    /// The status code, such as 200.
    public var status: Int
    /// The header lines in order; a name may repeat.
    public var headers: [MockHeader]
    /// The body bytes.
    public var body: [UInt8]
    /// A misbehaviour applied while sending, or nil to answer normally.
    public var fault: Fault?

    /// Creates a response from its parts.
    public init(status: Int = 200, headers: [MockHeader] = [], body: [UInt8] = [], fault: Fault? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.fault = fault
    }

    /// A JSON response from JSON text, with `Content-Type: application/json`.
    public static func json(_ text: String, status: Int = 200, headers: [MockHeader] = []) -> MockResponse {
        bytes(Array(text.utf8), status: status, contentType: "application/json", headers: headers)
    }

    /// A JSON response encoding `value` with sorted keys and unescaped slashes; a 500 with the error message if encoding fails.
    public static func json<T: Encodable>(_ value: T, status: Int = 200, headers: [MockHeader] = []) -> MockResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            let data = try encoder.encode(value)
            return bytes(Array(data), status: status, contentType: "application/json", headers: headers)
        } catch {
            return message("MockResponse could not encode \(T.self): \(error)", status: 500)
        }
    }

    /// A text response, `text/plain; charset=utf-8` unless another content type is given.
    public static func text(
        _ text: String,
        status: Int = 200,
        contentType: String = "text/plain; charset=utf-8",
        headers: [MockHeader] = []
    ) -> MockResponse {
        bytes(Array(text.utf8), status: status, contentType: contentType, headers: headers)
    }

    /// A response with raw body bytes and the given content type.
    public static func bytes(_ bytes: [UInt8], status: Int = 200, contentType: String, headers: [MockHeader] = []) -> MockResponse {
        MockResponse(status: status, headers: [MockHeader("Content-Type", contentType)] + headers, body: bytes)
    }

    /// A response with an empty body.
    public static func status(_ code: Int, headers: [MockHeader] = []) -> MockResponse {
        MockResponse(status: code, headers: headers)
    }

    /// A `503 Service Unavailable` (or `status`) with `Retry-After: seconds` and an empty body.
    public static func retryAfter(seconds: Int, status: Int = 503, headers: [MockHeader] = []) -> MockResponse {
        MockResponse(status: status, headers: [MockHeader("Retry-After", String(seconds))] + headers)
    }

    /// A JSON body `{"message": …}` with the given status, as the server's own errors use.
    static func message(_ text: String, status: Int) -> MockResponse {
        json(["message": text], status: status)
    }

    /// A copy that applies `fault` when sent.
    public func with(fault: Fault?) -> MockResponse {
        var copy = self
        copy.fault = fault
        return copy
    }

    /// A copy with one more header line; an existing line with the same name is kept.
    public func adding(header name: String, value: String) -> MockResponse {
        var copy = self
        copy.headers.append(MockHeader(name, value))
        return copy
    }
}
