/// Why a stored response cannot be used; a growable set of reasons, for logs and tests.
package struct UnusableReason: Sendable, Hashable, CustomStringConvertible {
    /// A short, stable, metric-safe identifier.
    package let description: String

    private init(_ description: String) { self.description = description }

    /// Nothing is stored for the request.
    package static let noStoredResponse = UnusableReason("no-stored-response")
    /// The request's `Vary`-selected header values differ from the stored ones (or `Vary: *`).
    package static let varyMismatch = UnusableReason("vary-mismatch")
    /// The request says `no-store`: bypass the cache entirely.
    package static let requestNoStore = UnusableReason("request-no-store")
    /// The stored response forbids storing: `no-store` (without `must-understand` on a status the cache implements).
    package static let responseNoStore = UnusableReason("response-no-store")
    /// The request method is not served from the cache (only `GET` is).
    package static let methodNotCacheable = UnusableReason("method-not-cacheable")
    /// The request asks for a range the stored response can't answer: several ranges, a malformed
    /// `Range`, bytes a stored part doesn't hold, or a stored body with a content coding.
    package static let rangeRequest = UnusableReason("range-request")
    /// The stored response is incomplete (a part of the representation) and the request asks for all of it.
    package static let incompleteResponse = UnusableReason("incomplete-response")
}
