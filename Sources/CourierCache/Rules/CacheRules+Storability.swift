import HTTPTypes

extension CacheRules {
    /// Whether a private cache may store `response` to `request` (RFC 9111 §3).
    ///
    /// Requires: a `GET` without `Range`; a final status other than `206`/`304`; no `no-store` in
    /// the request or the response; a `Vary` that is not `*` and names only valid fields; and
    /// either a status cacheable by default or explicit permission (`max-age`, `Expires`,
    /// `public`, `private`). `Authorization` on the request is fine for a private cache.
    /// Call ``varySelection(response:request:)`` to get the selection to store with it.
    public func isStorable(request: HTTPRequest, response: HTTPResponse) -> Bool {
        guard request.method == .get, !request.headerFields.contains(.range) else { return false }
        let status = response.status.code
        guard status >= 200, status != 206, status != 304 else { return false }
        guard !CacheControl(request: request.headerFields).noStore else { return false }
        let directives = CacheControl(response.headerFields)
        guard !directives.noStore else { return false }
        guard VarySelection.varyNames(of: response.headerFields) != nil else { return false }
        if Self.heuristicallyCacheableStatuses.contains(status) { return true }
        return directives.maxAge != nil || directives.isPublic || directives.isPrivate
            || response.headerFields.contains(.expires)
    }

    /// The vary selection to store with `response`; `nil` when it varies on `*` (never matchable).
    public func varySelection(response: HTTPResponse, request: HTTPRequest) -> VarySelection? {
        VarySelection(response: response, request: request)
    }

    /// Whether `request` carries the header values captured in `selection`.
    public func varyMatches(_ selection: VarySelection, request: HTTPRequest) -> Bool {
        selection.matches(request)
    }
}
