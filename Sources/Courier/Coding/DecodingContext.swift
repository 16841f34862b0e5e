import Foundation
import HTTPTypes

/// What an endpoint's ``Endpoint/decode(_:context:)`` may use: the client's decoder and the response.
public struct DecodingContext: Sendable {
    /// The client's decoder.
    public var decoder: any ResponseDecoder
    /// The HTTP response whose body is being decoded.
    public var response: HTTPResponse

    /// Creates a context.
    @usableFromInline
    package init(decoder: any ResponseDecoder, response: HTTPResponse) {
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
