import HTTPTypes

extension CacheRules {
    /// Whether a private cache may store `response` to `request` (RFC 9111 §3).
    ///
    /// Requires: a `GET`; a final status other than `304`, and for a `206` the shape of a part the
    /// cache can use (the request asked for one byte range; the response has one `Content-Range`
    /// with a known complete length and no content coding), while a `200` to a `Range` request is
    /// a complete response like any other; no `no-store` in
    /// the request, none in the response unless it comes with `must-understand` (see
    /// ``forbidsStoring(status:directives:)``); a `Vary` that is not `*` and names only valid fields; and
    /// either a status cacheable by default or explicit permission (`max-age`, `Expires`,
    /// `public`, `private`, and for a shared cache `s-maxage`; a shared cache never stores `private`).
    /// `Authorization` on the request is fine for a private cache; a shared one checks it in
    /// ``sharedCacheMayStore(_:credentialed:)``.
    /// Call ``varySelection(response:request:)`` to get the selection to store with it.
    package func isStorable(request: HTTPRequest, response: HTTPResponse) -> Bool {
        guard request.method == .get else { return false }
        let status = response.status.code
        guard status >= 200, status != 304 else { return false }
        guard status != 206 || isStorablePart(request: request, response: response) else { return false }
        guard !CacheControl(request: request.headerFields).noStore else { return false }
        let directives = CacheControl(response.headerFields)
        guard !forbidsStoring(status: status, directives: directives) else { return false }
        guard VarySelection.varyNames(of: response.headerFields) != nil else { return false }
        if isShared, directives.isPrivate { return false }
        if Self.heuristicallyCacheableStatuses.contains(status) { return true }
        return directives.maxAge != nil || directives.isPublic || directives.isPrivate
            || isShared && directives.sharedMaxAge != nil || response.headerFields.contains(.expires)
    }

    /// Whether a response's own directives forbid storing it (RFC 9111 §3, §5.2.2.3).
    ///
    /// `no-store` forbids it, except next to `must-understand` on a status in
    /// ``understoodStatuses``: that pair means "store only if you implement this status", which
    /// this cache does. `must-understand` on any other status forbids storing.
    package func forbidsStoring(status: Int, directives: CacheControl) -> Bool {
        guard directives.mustUnderstand else { return directives.noStore }
        return !Self.understoodStatuses.contains(status)
    }

    /// The final statuses whose caching rules this cache implements: those RFC 9110 defines, except
    /// `304` (never stored itself) and `416`. A `206` is stored only in the shape described at
    /// ``isStorable(request:response:)``.
    package static let understoodStatuses: Set<Int> = [
        200, 201, 202, 203, 204, 205, 206, 300, 301, 302, 303, 307, 308,
        400, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414, 415, 417, 421, 422, 426,
        500, 501, 502, 503, 504, 505,
    ]

    /// The vary selection to store with `response`; `nil` when it varies on `*` (never matchable).
    package func varySelection(response: HTTPResponse, request: HTTPRequest) -> VarySelection? {
        VarySelection(response: response, request: request, secrets: secrets)
    }

    /// Whether `request` carries the header values captured in `selection`.
    package func varyMatches(_ selection: VarySelection, request: HTTPRequest) -> Bool {
        selection.matches(request, secrets: secrets)
    }

    /// Whether `request` could select `stored` by its `Vary` fields: ``varyMatches(_:request:)``,
    /// or an `Accept-Language` answered by the stored `Content-Language` (see ``VarySelection``).
    package func varyMatches(_ stored: StoredResponse, request: HTTPRequest) -> Bool {
        stored.varySelection.matches(request, secrets: secrets, stored: stored.response)
    }
}
