import HTTPTypes

extension CacheRules {
    /// Fields that describe one connection, never a stored response (RFC 9111 §3.1): the
    /// hop-by-hop fields and those of the proxy the response came through.
    package static let hopByHopFieldNames: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade",
        "proxy-authenticate", "proxy-authentication-info", "proxy-authorization",
    ]

    /// The header fields of a response as the cache stores them (RFC 9111 §3.1).
    ///
    /// Drops the ``hopByHopFieldNames``, the fields that `Connection` names, and the fields named
    /// by `no-cache="…"` (never served without revalidation, so never kept) and `private="…"`
    /// (a private cache may keep them, but this one drops them: its anonymous partition is shared
    /// by every signed-out call on the device).
    package func fieldsToStore(_ fields: HTTPFields) -> HTTPFields {
        let excluded = Self.unstorableFieldNames(in: fields)
        guard fields.contains(where: { excluded.contains($0.name.canonicalName) }) else { return fields }
        var kept = fields
        kept.removeAll { excluded.contains($0.name.canonicalName) }
        return kept
    }

    /// The lowercased names of the fields in `fields` that ``fieldsToStore(_:)`` drops.
    static func unstorableFieldNames(in fields: HTTPFields) -> Set<String> {
        var names = hopByHopFieldNames
        if fields.contains(.connection) {
            for element in FieldList.elements(fields[values: .connection]) {
                names.insert(element.lowercased())
            }
        }
        let directives = CacheControl(fields)
        names.formUnion(directives.noCacheFieldNames)
        names.formUnion(directives.privateFieldNames)
        return names
    }
}
