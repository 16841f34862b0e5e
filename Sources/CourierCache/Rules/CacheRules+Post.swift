import Courier
import Foundation
import HTTPTypes

extension CacheRules {
    /// Whether a response to `POST` may answer later GETs of the same URL (RFC 9110 §9.3.3).
    ///
    /// Requires a `200` or `203` with explicit freshness (`max-age`, or one valid `Expires`), a
    /// `Content-Location` that resolves to the request's own URL (the response then is a
    /// representation of that resource), and nothing that would keep a GET response out of the
    /// store (`no-store`, `Vary: *`). The caller stores it after the POST's own invalidation.
    /// - Parameters:
    ///   - request: The request that was sent; anything but `POST` gives `false`.
    ///   - response: Its response.
    ///   - url: The request's absolute URL, to resolve `Content-Location` against.
    package func isStorableForGET(afterPost request: HTTPRequest, response: HTTPResponse, url: URL) -> Bool {
        guard request.method == .post, response.status.code == 200 || response.status.code == 203 else { return false }
        let fields = response.headerFields
        let directives = CacheControl(fields)
        guard !forbidsStoring(status: response.status.code, directives: directives),
              !CacheControl(request: request.headerFields).noStore,
              VarySelection.varyNames(of: fields) != nil
        else { return false }
        let expires = fields[values: .expires]
        let explicitlyFresh = directives.maxAge != nil || (expires.count == 1 && HTTPDate.parseExact(expires[0]) != nil)
        guard explicitlyFresh, let location = fields[values: .contentLocation].first,
              let resolved = URL(string: location, relativeTo: url)?.absoluteURL
        else { return false }
        return CacheKey.normalizedURL(resolved) == CacheKey.normalizedURL(url)
    }
}
