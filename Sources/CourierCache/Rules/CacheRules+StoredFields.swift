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
        let named = Self.fieldNamesListed(in: fields)
        func isDropped(_ field: HTTPField) -> Bool {
            let name = field.name.canonicalName
            return Self.hopByHopFieldNames.contains(name) || (!named.isEmpty && named.contains(name))
        }
        guard fields.contains(where: isDropped) else { return fields }
        var kept = fields
        kept.removeAll(where: isDropped)
        return kept
    }

    /// The lowercased names of the fields in `fields` that ``fieldsToStore(_:)`` drops.
    static func unstorableFieldNames(in fields: HTTPFields) -> Set<String> {
        hopByHopFieldNames.union(fieldNamesListed(in: fields))
    }

    /// The names, besides the hop-by-hop ones, that the response lists as not to store: in
    /// `Connection`, `no-cache="…"` and `private="…"` (usually none, and then nothing is allocated).
    private static func fieldNamesListed(in fields: HTTPFields) -> Set<String> {
        var names: Set<String> = []
        for field in fields where field.name == .connection {
            for element in FieldList.elements(field.value) {
                let name = element.lowercased()
                if !hopByHopFieldNames.contains(name) { names.insert(name) }
            }
        }
        guard fields.contains(.cacheControl) else { return names }
        let directives = CacheControl(fields)
        names.formUnion(directives.noCacheFieldNames)
        names.formUnion(directives.privateFieldNames)
        return names
    }
}
