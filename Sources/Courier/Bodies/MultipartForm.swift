import Foundation
import HTTPTypes
@_spi(Generated) import OpenAPIRuntime

/// A `multipart/form-data` body (RFC 7578): text fields and files, the files streamed from disk as
/// they are sent, never read whole.
///
/// ```swift
/// var form = MultipartForm()
/// form.append(.field("caption", "Sunset"))
/// form.append(.file("photo", photoURL, contentType: "image/jpeg"))
/// var body: RequestBody? { .multipart(form) }
/// ```
///
/// The encoding is swift-openapi-runtime's (the one generated OpenAPI clients use), so parts are
/// framed as those clients frame them. Names and filenames are quoted; a `"`, CR or LF in them is
/// percent-encoded as browsers do (RFC 7578 §4.2, WHATWG HTML), so no value can break the framing.
/// The body has an exact `Content-Length`, and a retried request sends the files again from the start.
public struct MultipartForm: Sendable {
    /// One part of a form.
    public struct Part: Sendable {
        enum Content: Sendable {
            case data(Data)
            case file(URL)
        }

        let name: String
        let filename: String?
        let contentType: String?
        let content: Content

        /// A text field, sent as UTF-8 without a content type (`text/plain` by RFC 7578's default).
        public static func field(_ name: String, _ value: String) -> Part {
            Part(name: name, filename: nil, contentType: nil, content: .data(Data(value.utf8)))
        }

        /// Bytes from memory, with a filename when the server expects a file.
        public static func data(_ name: String, _ data: Data, filename: String? = nil, contentType: String = "application/octet-stream") -> Part {
            Part(name: name, filename: filename, contentType: contentType, content: .data(data))
        }

        /// A file read from disk as it is sent; its filename is the file's name unless given.
        public static func file(_ name: String, _ file: URL, filename: String? = nil, contentType: String = "application/octet-stream") -> Part {
            Part(name: name, filename: filename ?? file.lastPathComponent, contentType: contentType, content: .file(file))
        }
    }

    /// The parts, in the order they are sent.
    package var parts: [Part]
    /// The delimiter between parts: random, so no file's bytes contain it by chance.
    let boundary = "courier-" + UUID().uuidString

    /// Creates a form with `parts`.
    public init(_ parts: [Part] = []) {
        self.parts = parts
    }

    /// Adds a part at the end.
    public mutating func append(_ part: Part) {
        parts.append(part)
    }

    /// The `Content-Type` of the body, with its boundary.
    var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// The encoded form with its exact length: the framing is measured once with empty parts (it
    /// doesn't depend on their bytes), then the parts' own lengths are added.
    func body() async throws -> HTTPBody {
        var raw: [MultipartRawPart] = []
        var empty: [MultipartRawPart] = []
        var partsLength: Int64 = 0
        for part in parts {
            let body: HTTPBody
            switch part.content {
            case .data(let data): body = HTTPBody(data)
            case .file(let file): body = try FileChunks.body(for: file)
            }
            partsLength += body.knownLength ?? 0
            raw.append(part.raw(body: Self.unannounced(body)))
            empty.append(part.raw(body: Self.unannounced(HTTPBody())))
        }
        var framing: Int64 = 0
        for try await chunk in encode(empty) { framing += Int64(chunk.count) }
        let encoded = encode(raw)
        return HTTPBody(encoded, length: .known(framing + partsLength), iterationBehavior: .multiple)
    }

    private func encode(_ parts: [MultipartRawPart]) -> HTTPBody {
        let converter = Converter(configuration: Configuration(multipartBoundaryGenerator: ConstantMultipartBoundaryGenerator(boundary: boundary)))
        var fields = HTTPFields()
        // Never throws (the library says so); a failure would surface when the body is read.
        let body = try? converter.setRequiredRequestBodyAsMultipart(
            MultipartBody(parts), headerFields: &fields, contentType: "multipart/form-data", allowsUnknownParts: true,
            requiredExactlyOncePartNames: [], requiredAtLeastOncePartNames: [], atMostOncePartNames: [], zeroOrMoreTimesPartNames: [],
            encoding: { $0 }
        )
        return body ?? HTTPBody()
    }

    /// `body` without an announced length: the library would otherwise add a `Content-Length` to
    /// the part, a field RFC 7578 §4.8 doesn't allow in form data.
    private static func unannounced(_ body: HTTPBody) -> HTTPBody {
        HTTPBody(body, length: .unknown, iterationBehavior: body.iterationBehavior)
    }
}

extension MultipartForm.Part {
    /// The part as the library frames it, `Content-Disposition` and `Content-Type` set.
    func raw(body: HTTPBody) -> MultipartRawPart {
        var fields = HTTPFields()
        if let contentType { fields[.contentType] = contentType }
        return MultipartRawPart(name: Self.escaped(name), filename: filename.map(Self.escaped), headerFields: fields, body: body)
    }

    /// `"`, CR and LF percent-encoded, as browsers encode form data names (the rest is quoted by the library).
    static func escaped(_ value: String) -> String {
        value.replacingOccurrences(of: "\"", with: "%22").replacingOccurrences(of: "\r", with: "%0D").replacingOccurrences(of: "\n", with: "%0A")
    }
}
