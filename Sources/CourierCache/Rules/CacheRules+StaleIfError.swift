import Foundation
import HTTPTypes

extension CacheRules {
    /// Whether the stored response may answer a request whose network attempt failed (RFC 5861, X4).
    ///
    /// - Never when the response says `no-store`, `no-cache` or (once stale) `must-revalidate`, or
    ///   when the request says `no-store`: those demand a successful validation.
    /// - Always when the response is still fresh.
    /// - Otherwise when its staleness is within the largest of the response's `stale-if-error`,
    ///   the request's `stale-if-error` and `extraAllowance` (the app's offline-fallback bound).
    ///
    /// "Network failed" means a transport error or a 5xx answer; the caller marks the result stale.
    /// - Parameters:
    ///   - stored: the stored response matched to the request.
    ///   - now: the current time.
    ///   - requestDirectives: the request's directives, from ``CacheControl/init(request:)``.
    ///   - extraAllowance: seconds of staleness the app accepts offline; `nil` for none.
    package func canServeStaleOnError(
        stored: StoredResponse, now: Date, requestDirectives: CacheControl, extraAllowance: TimeInterval?
    ) -> Bool {
        let directives = CacheControl(stored.response.headerFields)
        guard !forbidsStoring(status: stored.response.status.code, directives: directives), !directives.noCache,
              !requestDirectives.noStore
        else { return false }
        let staleness = staleness(of: stored, now: now)
        guard staleness > 0 else { return true }
        guard !mustRevalidateWhenStale(directives) else { return false }
        let allowance = max(
            TimeInterval(directives.staleIfError ?? 0),
            TimeInterval(requestDirectives.staleIfError ?? 0),
            extraAllowance ?? 0
        )
        return staleness <= allowance
    }
}
