import Foundation
import OpenAPIRuntime

/// The body of a request: JSON, a URL-encoded form, raw bytes, a file or a stream, with their content type.
public struct RequestBody: Sendable {
    enum Content: Sendable {
        case json(any Encodable & Sendable)
        case parameters(Parameters)
        case form(Parameters)
        case data(Data, contentType: String)
        case file(URL, contentType: String)
        case stream(HTTPBody, contentType: String)
        case multipart(MultipartForm)
    }

    let content: Content
    /// Whether the body is sent gzip-compressed (see ``gzipped()``).
    private(set) var isGzipped = false

    /// A JSON body encoded with the client's encoder.
    public static func json(_ value: some Encodable & Sendable) -> RequestBody { RequestBody(content: .json(value)) }

    /// A JSON object built from parameters (a dictionary literal or an `Encodable`).
    public static func json(parameters: Parameters) -> RequestBody { RequestBody(content: .parameters(parameters)) }

    /// An `application/x-www-form-urlencoded` body.
    public static func form(_ parameters: Parameters) -> RequestBody { RequestBody(content: .form(parameters)) }

    /// Raw bytes sent as they are, with their content type.
    public static func data(_ data: Data, contentType: String) -> RequestBody {
        RequestBody(content: .data(data, contentType: contentType))
    }

    /// A file's contents, read from disk as they are sent (never whole in memory); a retried
    /// request sends the file again from its start.
    public static func file(_ file: URL, contentType: String = "application/octet-stream") -> RequestBody {
        RequestBody(content: .file(file, contentType: contentType))
    }

    /// Chunks of bytes sent as they come, with chunked transfer encoding when `length` is unknown.
    /// A stream can be sent once: a request with one is not retried, and a redirect that needs the
    /// body again fails.
    public static func stream<Chunks: AsyncSequence & Sendable>(
        _ chunks: Chunks, length: Int64? = nil, contentType: String = "application/octet-stream"
    ) -> RequestBody where Chunks.Element == ArraySlice<UInt8> {
        let body = HTTPBody(chunks, length: length.map { .known($0) } ?? .unknown, iterationBehavior: .single)
        return RequestBody(content: .stream(body, contentType: contentType))
    }

    /// A `multipart/form-data` form: fields and files, the files streamed from disk (see ``MultipartForm``).
    public static func multipart(_ form: MultipartForm) -> RequestBody {
        RequestBody(content: .multipart(form))
    }

    /// This body sent gzip-compressed, with `Content-Encoding: gzip`: bytes are compressed at once,
    /// files, forms and streams chunk by chunk as they are sent (with chunked transfer encoding, the
    /// compressed length being unknown until the end).
    ///
    /// Only for a server that accepts compressed request bodies (many reply `415 Unsupported Media
    /// Type` otherwise): HTTP gives a client no way to ask first. Worth it for large, repetitive
    /// bodies such as JSON batches or logs.
    public func gzipped() -> RequestBody {
        var body = self
        body.isGzipped = true
        return body
    }

    /// Text sent as UTF-8.
    public static func text(_ text: String, contentType: String = "text/plain; charset=utf-8") -> RequestBody {
        RequestBody(content: .data(Data(text.utf8), contentType: contentType))
    }
}
