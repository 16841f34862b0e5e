import HTTPTypes

extension CacheRules {
    /// The request that asks the origin only for the bytes a stored part lacks to answer `request`
    /// (RFC 9111 §3.4), and the index of that part in `variants`.
    ///
    /// The request is `request` with `Range` set to the missing bytes and `If-Range` to the part's
    /// strong `ETag`, so a changed representation comes back whole (`200`) instead of a part that
    /// doesn't fit. Nil — send `request` as it is — unless a stored part (a `206` the request's
    /// `Vary` fields select, with a strong `ETag`) holds some of the bytes asked for (all of them for
    /// a request without `Range`, else its one byte range) and lacks one contiguous run of them; a
    /// request with conditions of its own, several or malformed ranges, or `no-store` is left alone,
    /// and so is a part that, completed, would hold more than `limit` bytes (it could not be kept).
    package func completion(
        for request: HTTPRequest, among variants: [StoredResponse], limit: Int
    ) -> (index: Int, request: HTTPRequest)? {
        let fields = request.headerFields
        let ranges = fields[values: .range]
        guard request.method == .get, ranges.count <= 1, !CacheControl(request: fields).noStore,
              !Self.conditionalFieldNames.contains(where: { fields.contains($0) })
        else { return nil }
        let spec: ByteRangeSpec? = ranges.first.flatMap(ByteRangeSpec.init)
        if !ranges.isEmpty, spec == nil { return nil }
        var best: (index: Int, request: HTTPRequest)?
        for index in variants.indices {
            let part = variants[index]
            guard isCompletable(part, for: request), let etag = Self.strongETag(of: part.response.headerFields),
                  let held = Self.heldRange(of: part.response.headerFields)
            else { continue }
            let wanted = spec.map { $0.resolved(length: held.completeLength) } ?? 0...(held.completeLength - 1)
            guard let wanted, let missing = Self.missingRange(wanted: wanted, held: held.bytes),
                  max(wanted.upperBound, held.bytes.upperBound) - min(wanted.lowerBound, held.bytes.lowerBound) < Int64(limit)
            else { continue }
            if let current = best, variants[current.index].responseTime >= part.responseTime { continue }
            var ranged = request
            ranged.headerFields[.range] = "bytes=\(missing.lowerBound)-\(missing.upperBound)"
            ranged.headerFields[.ifRange] = etag
            best = (index, ranged)
        }
        return best
    }

    /// The one run of `wanted` that `held` lacks; nil when `held` holds none of `wanted` (nothing
    /// to reuse), all of it, or leaves a gap on both sides (two runs).
    static func missingRange(wanted: ClosedRange<Int64>, held: ClosedRange<Int64>) -> ClosedRange<Int64>? {
        guard held.overlaps(wanted) else { return nil }
        switch (wanted.lowerBound < held.lowerBound, wanted.upperBound > held.upperBound) {
        case (false, true): return (held.upperBound + 1)...wanted.upperBound
        case (true, false): return wanted.lowerBound...(held.lowerBound - 1)
        default: return nil
        }
    }

    /// Whether `part` is a stored part `request` selects and the cache may reuse.
    private func isCompletable(_ part: StoredResponse, for request: HTTPRequest) -> Bool {
        part.response.status.code == 206
            && !forbidsStoring(status: 206, directives: CacheControl(part.response.headerFields))
            && VarySelection.varyNames(of: part.response.headerFields) == part.varySelection.names
            && part.varySelection.matches(request, secrets: secrets, stored: part.response)
    }
}
