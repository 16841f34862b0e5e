import HTTPTypes

extension CacheRules {
    /// What a response to `HEAD` does to a stored `GET` response it could stand for (RFC 9111 §4.3.5).
    ///
    /// Only a `200` or a `410` says something about the stored response. When it has the stored
    /// status, the same values for the validators it carries (`ETag`, `Last-Modified`) and, if it
    /// has one, the stored `Content-Length`, it updates the stored header fields as a `304` would
    /// (``merge(stored:notModified:)``). Otherwise the stored response is removed: RFC 9111 asks
    /// for it to be considered stale, and removing it is the stricter form. A `HEAD` without any
    /// validator cannot confirm a stored response that has one, so that response is removed too.
    /// A stored part (`206`) is compared as the `200` it is part of (the complete length its
    /// `Content-Range` states) and keeps its `Content-Range` when updated.
    /// - Parameters:
    ///   - head: The response to `HEAD`.
    ///   - stored: A stored `GET` response whose vary selection matches the `HEAD` request.
    ///   - storedBodySize: The stored body's length, when the stored fields have no `Content-Length`.
    package func outcome(ofHead head: HTTPResponse, for stored: StoredResponse, storedBodySize: Int) -> HeadOutcome {
        guard head.status.code == 200 || head.status.code == 410 else { return .keep }
        let headFields = head.headerFields
        let storedFields = stored.response.headerFields
        // A HEAD describes the whole representation, which a stored part holds some bytes of.
        let part = stored.response.status.code == 206 ? Self.heldRange(of: storedFields) : nil
        guard head.status.code == (part == nil ? stored.response.status.code : 200) else { return .invalidate }
        let validators: [HTTPField.Name] = [.eTag, .lastModified]
        let received = validators.filter { headFields[$0] != nil }
        if received.isEmpty, validators.contains(where: { storedFields[$0] != nil }) { return .invalidate }
        for name in received where headFields[name] != storedFields[name] { return .invalidate }
        let storedLength = part?.completeLength ?? Int64(storedFields[.contentLength] ?? String(storedBodySize))
        if let length = headFields[.contentLength], Int64(length) != storedLength { return .invalidate }
        let merged = part != nil ? mergeKeepingHeldRange(stored: storedFields, notModified: headFields) : merge(stored: storedFields, notModified: headFields)
        return sharedCacheMayKeep(merged) ? .update(merged) : .invalidate
    }
}
