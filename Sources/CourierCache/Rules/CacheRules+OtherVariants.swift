import HTTPTypes

extension CacheRules {
    /// `request` with `If-None-Match` listing the entity tags of the stored responses of its URL
    /// that its `Vary` fields did not select, so that the server can answer `304` naming the one it
    /// would send (RFC 9111 §4.3.1); nil when none has a tag, or when the request has conditions of
    /// its own (their `304` is the caller's) or says `no-store`.
    ///
    /// Listed: complete responses (not parts) with one well-formed `ETag`, whose `no-store` (if
    /// any) doesn't forbid reusing them; each tag once, in the order given.
    package func conditionalRequest(for request: HTTPRequest, unselected variants: [StoredResponse]) -> HTTPRequest? {
        let fields = request.headerFields
        guard request.method == .get, !CacheControl(request: fields).noStore,
              !Self.conditionalFieldNames.contains(where: { fields.contains($0) })
        else { return nil }
        var tags: [String] = []
        for variant in variants where isValidatable(variant) {
            if let tag = Self.entityTag(of: variant.response.headerFields), !tags.contains(tag) { tags.append(tag) }
        }
        guard !tags.isEmpty else { return nil }
        var conditional = request
        conditional.headerFields[.ifNoneMatch] = tags.joined(separator: ", ")
        return conditional
    }

    /// The index of the stored response a `304` names by its `ETag`, compared weakly as
    /// `If-None-Match` is (RFC 9110 §8.8.3.2); of several, the most recent (RFC 9111 §4.3.4).
    /// Nil when the `304` has no tag or names none of `variants`.
    package func variantNamed(by notModified: HTTPResponse, among variants: [StoredResponse]) -> Int? {
        guard let tag = Self.entityTag(of: notModified.headerFields).map(Self.opaqueTag) else { return nil }
        return variants.indices
            .filter { isValidatable(variants[$0]) && Self.entityTag(of: variants[$0].response.headerFields).map(Self.opaqueTag) == tag }
            .max { variants[$0].responseTime < variants[$1].responseTime }
    }

    /// The request fields that make a request conditional (RFC 9110 §13.1).
    static let conditionalFieldNames: [HTTPField.Name] = [.ifNoneMatch, .ifModifiedSince, .ifMatch, .ifUnmodifiedSince, .ifRange]

    /// Whether `stored` is a complete, reusable response with a tag a `304` can name.
    private func isValidatable(_ stored: StoredResponse) -> Bool {
        // The stored Vary names must agree with the selection, as for any variant served (a mismatch is a damaged entry).
        stored.response.status.code != 206 && Self.entityTag(of: stored.response.headerFields) != nil
            && !forbidsStoring(status: stored.response.status.code, directives: CacheControl(stored.response.headerFields))
            && VarySelection.varyNames(of: stored.response.headerFields) == stored.varySelection.names
    }

    /// The entity tag of one `ETag` line in the form `"x"` or `W/"x"`; nil otherwise.
    static func entityTag(of fields: HTTPFields) -> String? {
        let values = fields[values: .eTag]
        guard values.count == 1 else { return nil }
        let tag = FieldList.trim(Substring(values[0]))
        let opaque = opaqueTag(String(tag))
        guard opaque.count >= 2, opaque.hasPrefix("\""), opaque.hasSuffix("\""), !opaque.dropFirst().dropLast().contains("\"")
        else { return nil }
        return String(tag)
    }

    /// An entity tag without its weakness indicator, as weak comparison sees it.
    static func opaqueTag(_ tag: String) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : Substring(tag)
    }
}
