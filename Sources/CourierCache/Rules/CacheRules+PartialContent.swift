import HTTPTypes

extension CacheRules {
    /// Whether a `206` to `request` has the shape this cache stores as an incomplete response (RFC 9111 §3.3):
    /// the request asked for one byte range, and the response carries one `Content-Range` with a
    /// known complete length (never `multipart/byteranges`) and no content coding. The caller still
    /// checks that the body holds exactly the bytes `Content-Range` announces.
    func isStorablePart(request: HTTPRequest, response: HTTPResponse) -> Bool {
        let ranges = request.headerFields[values: .range]
        let codings = FieldList.elements(response.headerFields[values: .contentEncoding])
        return response.status.code == 206 && ranges.count == 1 && ByteRangeSpec(ranges[0]) != nil
            && Self.heldRange(of: response.headerFields) != nil && codings.allSatisfy { $0.lowercased() == "identity" }
    }

    /// How a newly received part (`held`, from `new`) goes with the stored response of the same
    /// variant (RFC 9111 §3.4, RFC 9110 §15.3.7.3).
    ///
    /// Only responses with the same strong `ETag` and the same complete length are combined.
    /// A stored complete response then already holds the part and is kept (its header fields are
    /// those of the most recent `200`); a stored part that overlaps or touches the new one
    /// becomes one part holding both, unless that would exceed `limit` bytes. Anything else —
    /// another or a weak validator, no validator, parts with a gap between them — is replaced by
    /// the newer part (the cache keeps one contiguous range per variant).
    func combination(
        of new: HTTPResponse, held: HeldRange, with stored: HTTPResponse, storedBodySize: Int, limit: Int
    ) -> PartialCombination {
        guard let etag = Self.strongETag(of: new.headerFields), Self.strongETag(of: stored.headerFields) == etag else {
            return .replace
        }
        guard stored.status.code == 206 else {
            return Int64(storedBodySize) == held.completeLength ? .keepStored : .replace
        }
        guard let storedHeld = Self.heldRange(of: stored.headerFields), storedHeld.count == Int64(storedBodySize),
              let union = storedHeld.union(held), union.count <= Int64(limit)
        else { return .replace }
        return .combine(union: union)
    }

    /// The status and header fields of a combined part: the stored fields updated by the new
    /// part's (as a `304` updates them, §3.2), except its `Content-Range`, then the union's own
    /// `Content-Range` and `Content-Length` — or, when the union is the whole representation, a
    /// `200` with the complete `Content-Length` and no `Content-Range`.
    func combinedHead(stored: HTTPFields, new: HTTPFields, union: HeldRange) -> (status: Int, fields: HTTPFields) {
        var fields = merge(stored: stored, notModified: new)
        fields[values: .contentRange] = []
        fields[values: .contentLength] = []
        if union.isComplete {
            fields[.contentLength] = String(union.completeLength)
            return (200, fields)
        }
        fields[.contentRange] = union.fieldValue
        fields[.contentLength] = String(union.count)
        return (206, fields)
    }

    /// The stored fields of a part refreshed by a `304` (§3.2, as ``merge(stored:notModified:)``),
    /// keeping its own `Content-Range`: the stored bytes depend on it (the exception §3.2 makes for
    /// fields a stored response depends on), and a `304` says the representation is unchanged.
    func mergeKeepingHeldRange(stored: HTTPFields, notModified: HTTPFields) -> HTTPFields {
        var merged = merge(stored: stored, notModified: notModified)
        merged[values: .contentRange] = stored[values: .contentRange]
        return merged
    }
}
