import HTTPTypes

/// Who a cache serves (RFC 9111 §1): the rules of a shared cache are stricter where a response
/// meant for one user could reach another.
public enum CacheSharing: Sendable, Hashable {
    /// One user's device or process: `private` responses are stored, `s-maxage` is ignored.
    case `private`
    /// Many end users (a fleet of servers, a backend that calls upstream for its users): a
    /// `private` response is never stored, `s-maxage` and `proxy-revalidate` apply, a response to a
    /// request with credentials is stored only when it says a shared cache may (`public`,
    /// `s-maxage` or `must-revalidate`), and `Set-Cookie` is never stored.
    ///
    /// A signed-in user's partition (named by their credentials' identity) is read by that user
    /// alone, which RFC 9111 §1 calls a private cache: there `private` responses are stored for
    /// them and `s-maxage` is ignored (`Set-Cookie` still isn't stored). The anonymous partition
    /// and one keyed by a hashed secret (an API key may stand for many end users) keep these rules.
    case shared
}

extension CacheRules {
    /// Whether a shared cache may store `response` to a request that did, or did not, carry
    /// credentials (RFC 9111 §5.2.2.7, §3.5); always true for a private cache.
    ///
    /// `private` keeps a response out of a shared cache, with or without field names (§5.2.2.7
    /// lets a shared cache keep the rest of a response whose `private` names fields: this one
    /// keeps none of it).
    package func sharedCacheMayStore(_ response: HTTPResponse, credentialed: Bool) -> Bool {
        guard isShared else { return true }
        let directives = CacheControl(response.headerFields)
        if directives.isPrivate { return false }
        guard credentialed else { return true }
        return directives.isPublic || directives.sharedMaxAge != nil || directives.mustRevalidate
    }

    /// Whether a shared cache may go on keeping a stored response whose header fields a `304` or
    /// a `HEAD` changed to `fields`: not once they say `private` (§5.2.2.7), as it wouldn't store
    /// such a response in the first place.
    package func sharedCacheMayKeep(_ fields: HTTPFields) -> Bool {
        !isShared || !CacheControl(fields).isPrivate
    }

    /// Whether a stale stored response must be revalidated before any use, even when the request
    /// or `stale-if-error` accepts staleness: `must-revalidate`, and for a shared cache
    /// `proxy-revalidate` and `s-maxage` (RFC 9111 §5.2.2.2, §5.2.2.8, §5.2.2.10).
    package func mustRevalidateWhenStale(_ directives: CacheControl) -> Bool {
        directives.mustRevalidate || isShared && (directives.proxyRevalidate || directives.sharedMaxAge != nil)
    }
}
