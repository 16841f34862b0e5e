import Foundation

/// Turns a model into body bytes for JSON request bodies; swappable like ``ResponseDecoder``.
public protocol RequestEncoder: Sendable {
    /// The content type of what ``encode(_:)`` produces.
    var contentType: String { get }
    /// Encodes a value into body bytes.
    func encode<T: Encodable>(_ value: T) throws -> Data
}

extension JSONEncoder: RequestEncoder {
    /// `application/json`.
    public var contentType: String { "application/json" }
}
