import Foundation
import HTTPTypes

/// The `Idempotency-Key` an endpoint sends so that a write (a POST, a PATCH) can be retried safely.
///
/// The IETF HTTPAPI working group's draft "The Idempotency-Key HTTP Header Field" lets a client
/// give a non-idempotent request a unique key; a server that supports it performs the request once
/// per key and answers a repeat with the first outcome (or `409 Conflict` while the first is still
/// in flight, `422` when the same key comes with another body). Courier sends one key per call, the
/// same on every attempt of that call, and only then lets ``RetryPolicy`` retry the method (and only
/// when the request body can be sent again). Use it only with a server that implements the draft:
/// for any other, a retried write may act twice.
///
/// ```swift
/// struct PlaceOrder: Endpoint {
///     typealias Response = Order
///     let order: NewOrder
///     var method: HTTPRequest.Method { .post }
///     var path: EndpointPath { "/orders" }
///     var body: RequestBody? { .json(order) }
///     var idempotencyKey: IdempotencyKey? { .generated }
/// }
/// ```
public struct IdempotencyKey: Sendable, Hashable, CustomStringConvertible {
    /// The value as sent, or nil for a new one per call.
    let value: String?

    /// A new random key for each call (a UUID), written as the draft's structured-field string:
    /// `Idempotency-Key: "8e03978e-40d5-43e8-bc93-6894a57f9324"`.
    public static let generated = IdempotencyKey(value: nil)

    /// The endpoint's own key (one it derives from the operation, or keeps to retry a call later),
    /// sent exactly as given: quote it for a server that follows the draft, leave it bare for one that
    /// expects a plain token.
    public static func custom(_ value: String) -> IdempotencyKey {
        IdempotencyKey(value: value)
    }

    /// The key, or `generated`.
    public var description: String { value ?? "generated" }

    /// The header field's name.
    static let fieldName = HTTPField.Name("Idempotency-Key")

    /// The value to send for one call.
    package func valueForCall() -> String {
        value ?? "\"\(UUID().uuidString.lowercased())\""
    }
}

extension EndpointCall {
    /// Gives the call its idempotency key (one value for all its attempts) and lets it be retried.
    @usableFromInline
    mutating func add(_ key: IdempotencyKey) {
        guard let name = IdempotencyKey.fieldName else { return }
        headers[name] = key.valueForCall()
        isIdempotent = true
    }
}
