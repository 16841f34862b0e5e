import HTTPTypes

extension CacheRules {
    /// Fields that describe one connection, never a stored response (RFC 9111 §3.1): the
    /// hop-by-hop fields and those of the proxy the response came through.
    package static let hopByHopFieldNames = Set(hopByHopNames)

    /// The same names, in the list ``isHopByHop(_:)`` compares against.
    private static let hopByHopNames = [
        "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade",
        "proxy-authenticate", "proxy-authentication-info", "proxy-authorization",
    ]

    /// The header fields of a response as the cache stores them (RFC 9111 §3.1).
    ///
    /// Drops the ``hopByHopFieldNames``, the fields that `Connection` names, and the fields named
    /// by `no-cache="…"` (never served without revalidation, so never kept) and `private="…"`
    /// (a private cache may keep them, but this one drops them: its anonymous partition is shared
    /// by every signed-out call on the device); a shared cache, and a shared storage in a user's own
    /// partition, drop `Set-Cookie` too, which belongs to the one user it was sent to.
    package func fieldsToStore(_ fields: HTTPFields) -> HTTPFields {
        let named = Self.fieldNamesListed(in: fields)
        let dropsCookies = isShared || storageIsShared
        func isDropped(_ field: HTTPField) -> Bool {
            let name = field.name.canonicalName
            return Self.isHopByHop(name) || (!named.isEmpty && named.contains(name)) || dropsCookies && field.name == .setCookie
        }
        guard fields.contains(where: isDropped) else { return fields }
        var kept = fields
        kept.removeAll(where: isDropped)
        return kept
    }

    /// Whether `name` (lowercased) is one of the ``hopByHopFieldNames``: compared with each, where
    /// the set would hash it (this runs for every field of every stored response, and most names
    /// are short enough to compare as two words).
    static func isHopByHop(_ name: String) -> Bool {
        hopByHopNames.contains(name)
    }

    /// The lowercased names of the fields in `fields` that ``fieldsToStore(_:)`` drops.
    static func unstorableFieldNames(in fields: HTTPFields) -> Set<String> {
        hopByHopFieldNames.union(fieldNamesListed(in: fields))
    }

    /// The names, besides the hop-by-hop ones, that the response lists as not to store: in
    /// `Connection`, `no-cache="…"` and `private="…"` (usually none, and then nothing is allocated).
    private static func fieldNamesListed(in fields: HTTPFields) -> Set<String> {
        var names: Set<String> = []
        var directivesMayNameFields = false
        for field in fields {
            if field.name == .connection {
                let value = field.value
                guard !namesOnlyItself(value) else { continue }
                for element in FieldList.elements(value) {
                    let name = element.lowercased()
                    if !isHopByHop(name) { names.insert(name) }
                }
            } else if field.name == .cacheControl, !directivesMayNameFields {
                directivesMayNameFields = mayNameFields(field)
            }
        }
        guard directivesMayNameFields else { return names }
        let directives = CacheControl(fields)
        names.formUnion(directives.noCacheFieldNames)
        names.formUnion(directives.privateFieldNames)
        return names
    }

    /// Whether a `Connection` value is one of the usual two, which name no other field: nearly
    /// every response says `keep-alive` or `close`, and then its value isn't split into a list.
    private static func namesOnlyItself(_ value: String) -> Bool {
        guard value.utf8.count <= 10 else { return false }
        let lowercased = value.lowercased()
        return lowercased == "keep-alive" || lowercased == "close"
    }

    /// Whether a `Cache-Control` line mentions `no-cache` or `private` (in any case), the only
    /// directives that name fields: the others (`max-age=3600`, nearly always) aren't parsed here.
    private static func mayNameFields(_ field: HTTPField) -> Bool {
        field.withUnsafeBytesOfValue { value in
            value.indices.contains { start in
                startsWithIgnoringCase(value[start...], "no-cache") || startsWithIgnoringCase(value[start...], "private")
            }
        }
    }

    /// Whether `bytes` start with `word` (lowercase ASCII), in any case. Setting the case bit can
    /// also match a few non-letters (a false "maybe", which only costs a parse), never miss a letter.
    private static func startsWithIgnoringCase(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, _ word: StaticString) -> Bool {
        guard bytes.count >= word.utf8CodeUnitCount else { return false }
        let lowercaseBit: UInt8 = 0x20
        return zip(bytes, UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)).allSatisfy { byte, letter in
            byte | lowercaseBit == letter | lowercaseBit
        }
    }
}
