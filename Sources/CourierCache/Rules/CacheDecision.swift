import Foundation
import HTTPTypes

/// What to do with a request given the stored response (if any); the result of ``CacheRules/evaluate(request:stored:now:)``.
package enum CacheDecision: Sendable, Hashable {
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
    package var servesStoredResponse: Bool {
        switch self {
        case .fresh, .staleAcceptable, .staleWhileRevalidate: true
        case .revalidate, .unusable, .onlyIfCachedMiss: false
        }
    }
}
