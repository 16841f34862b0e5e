import Foundation
import HTTPTypes

/// What to do with a request given the stored response (if any); the result of ``CacheRules/evaluate(request:stored:now:)``.
public enum CacheDecision: Sendable, Hashable {
    /// The stored response is fresh: serve it (with ``CacheRules/servedResponse(for:now:)``) and skip the network.
    case fresh(age: TimeInterval)
    /// The stored response is stale but within the request's `max-stale`: serve it, marked stale.
    case staleAcceptable(age: TimeInterval, staleness: TimeInterval)
    /// Serve the stale response now and send `revalidation` in the background (`stale-while-revalidate`).
    case staleWhileRevalidate(age: TimeInterval, staleness: TimeInterval, revalidation: HTTPRequest)
    /// Send this request (conditional when the stored response has validators) before using the entry.
    ///
    /// On `304 Not Modified`: merge with ``CacheRules/merge(stored:notModified:)``, update the
    /// entry and serve it. On any other response: use (and possibly store) the network response.
    /// On a network failure: ``CacheRules/canServeStaleOnError(stored:now:requestDirectives:extraAllowance:)``.
    case revalidate(HTTPRequest)
    /// The stored response cannot be used for this request: send the request unchanged.
    case unusable(UnusableReason)
    /// The request says `only-if-cached` and nothing servable is stored: answer `504` without the network.
    case onlyIfCachedMiss

    /// Whether the decision serves the stored response right away without waiting for the network.
    public var servesStoredResponse: Bool {
        switch self {
        case .fresh, .staleAcceptable, .staleWhileRevalidate: true
        case .revalidate, .unusable, .onlyIfCachedMiss: false
        }
    }
}

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
    /// The request asks for a range the stored response can't answer: several ranges, a malformed
    /// `Range`, bytes a stored part doesn't hold, or a stored body with a content coding.
    public static let rangeRequest = UnusableReason("range-request")
    /// The stored response is incomplete (a part of the representation) and the request asks for all of it.
    public static let incompleteResponse = UnusableReason("incomplete-response")
}
