import Foundation

/// The body of a request: JSON, a URL-encoded form, or raw bytes with their content type.
public struct RequestBody: Sendable {
    enum Content: Sendable {
        case json(any Encodable & Sendable)
        case parameters(Parameters)
        case form(Parameters)
        case data(Data, contentType: String)
    }

    let content: Content

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

    /// Text sent as UTF-8.
    public static func text(_ text: String, contentType: String = "text/plain; charset=utf-8") -> RequestBody {
        RequestBody(content: .data(Data(text.utf8), contentType: contentType))
    }
}
