import HTTPTypes

extension CacheRules {
    /// The stored header fields updated from a `304 Not Modified` or a `200` to `HEAD` (RFC 9111 §3.2).
    ///
    /// Every field of the newer response replaces all stored lines of the same name, including
    /// `Content-Type`, `Content-Encoding` and `Content-Range`; stored fields it does not repeat are
    /// kept. Not taken from it: `Content-Length` (it describes the newer message, not the stored
    /// body) and what ``fieldsToStore(_:)`` never stores (hop-by-hop fields, the fields its
    /// `Connection` names, fields named by `no-cache="…"` / `private="…"`).
    /// Because the entry's request and response times are replaced by the newer response's, a
    /// stored `Date` or `Age` that it does not repeat is dropped (otherwise the old `Date` would age
    /// the refreshed entry instantly). Store the result with the newer response's times.
    package func merge(stored: HTTPFields, notModified: HTTPFields) -> HTTPFields {
        var excluded = Self.unstorableFieldNames(in: notModified)
        excluded.insert("content-length")
        var replaced = Set(notModified.map { $0.name.canonicalName }).subtracting(excluded)
        replaced.formUnion(["date", "age"])
        var merged = HTTPFields()
        for field in stored where !replaced.contains(field.name.canonicalName) {
            merged.append(field)
        }
        for field in notModified where replaced.contains(field.name.canonicalName) {
            merged.append(field)
        }
        return fieldsToStore(merged)
    }
}
