/// Why a stored response cannot be used; a growable set of reasons, for logs and tests.
public struct UnusableReason: Sendable, Hashable, CustomStringConvertible {
    /// A short, stable, metric-safe identifier.
    public let description: String

    private init(_ description: String) { self.description = description }

    /// Nothing is stored for the request.
    public static let noStoredResponse = UnusableReason("no-stored-response")
    /// The request's `Vary`-selected header values differ from the stored ones (or `Vary: *`).
    public static let varyMismatch = UnusableReason("vary-mismatch")
    /// The request says `no-store`: bypass the cache entirely.
    public static let requestNoStore = UnusableReason("request-no-store")
    /// The stored response forbids storing: `no-store` (without `must-understand` on a status the cache implements).
    public static let responseNoStore = UnusableReason("response-no-store")
    /// The request method is not served from the cache (only `GET` is).
    public static let methodNotCacheable = UnusableReason("method-not-cacheable")
    /// The request asks for a range; this cache stores complete responses only.
    public static let rangeRequest = UnusableReason("range-request")
}
