import HTTPTypes

extension CacheRules {
    /// The stored header fields updated from a `304 Not Modified` (RFC 9111 §3.2).
    ///
    /// Every field of the 304 replaces all stored lines of the same name, except fields that
    /// describe the stored body or the connection: `Content-Length`, `Content-Encoding`,
    /// `Content-Range`, `Content-Type`, `Transfer-Encoding`, `Trailer`, `Connection` (and the names
    /// it lists), `Keep-Alive`, `Proxy-Connection`, `TE`, `Upgrade`.
    /// Because the entry's request and response times are replaced by the 304's, a stored `Date`
    /// or `Age` that the 304 does not repeat is dropped (otherwise the old `Date` would age the
    /// refreshed entry instantly). Store the result with the 304's request and response times.
    public func merge(stored: HTTPFields, notModified: HTTPFields) -> HTTPFields {
        var excluded: Set<String> = [
            "content-length", "content-encoding", "content-range", "content-type", "transfer-encoding",
            "trailer", "connection", "keep-alive", "proxy-connection", "te", "upgrade",
        ]
        for element in FieldList.elements(notModified[values: .connection]) {
            excluded.insert(element.lowercased())
        }
        var replaced = Set(notModified.map { $0.name.canonicalName }).subtracting(excluded)
        replaced.formUnion(["date", "age"])
        var merged = HTTPFields()
        for field in stored where !replaced.contains(field.name.canonicalName) {
            merged.append(field)
        }
        for field in notModified where replaced.contains(field.name.canonicalName) {
            merged.append(field)
        }
        return merged
    }
}
