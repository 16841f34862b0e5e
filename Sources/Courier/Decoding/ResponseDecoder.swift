import Foundation
import HTTPTypes

/// Turns body bytes into a model; the one place an app swaps JSON for another format or library.
public protocol ResponseDecoder: Sendable {
    /// Decodes a value of the given type from the body bytes.
    func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T
}

/// Turns a model into body bytes for JSON request bodies; swappable like ``ResponseDecoder``.
public protocol RequestEncoder: Sendable {
    /// The content type of what ``encode(_:)`` produces.
    var contentType: String { get }
    /// Encodes a value into body bytes.
    func encode<T: Encodable>(_ value: T) throws -> Data
}

extension JSONDecoder: ResponseDecoder {}

extension JSONEncoder: RequestEncoder {
    /// `application/json`.
    public var contentType: String { "application/json" }
}

/// What an endpoint's ``Endpoint/decode(_:context:)`` may use: the client's decoder and the response.
public struct DecodingContext: Sendable {
    /// The client's decoder.
    public var decoder: any ResponseDecoder
    /// The HTTP response whose body is being decoded.
    public var response: HTTPResponse

    /// Creates a context.
    public init(decoder: any ResponseDecoder, response: HTTPResponse) {
        self.decoder = decoder
        self.response = response
    }

    /// Decodes a value with the client's decoder; an empty body fails with a clear message.
    @inlinable
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        guard !data.isEmpty else { throw EmptyBodyError() }
        return try decoder.decode(type, from: data)
    }
}

/// Thrown when a body was needed but the server sent none.
@usableFromInline
struct EmptyBodyError: Error, CustomStringConvertible {
    @usableFromInline init() {}
    @usableFromInline var description: String { "the response body is empty, but a value was expected" }
}
