import Foundation

/// Turns body bytes into a model; the one place an app swaps JSON for another format or library.
public protocol ResponseDecoder: Sendable {
    /// Decodes a value of the given type from the body bytes.
    func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T
}

extension JSONDecoder: ResponseDecoder {}
