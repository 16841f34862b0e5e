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
    /// - Parameters:
    ///   - head: The response to `HEAD`.
    ///   - stored: A stored `GET` response whose vary selection matches the `HEAD` request.
    ///   - storedBodySize: The stored body's length, when the stored fields have no `Content-Length`.
    package func outcome(ofHead head: HTTPResponse, for stored: StoredResponse, storedBodySize: Int) -> HeadOutcome {
        guard head.status.code == 200 || head.status.code == 410 else { return .keep }
        let headFields = head.headerFields
        let storedFields = stored.response.headerFields
        guard head.status.code == stored.response.status.code else { return .invalidate }
        let validators: [HTTPField.Name] = [.eTag, .lastModified]
        let received = validators.filter { headFields[$0] != nil }
        if received.isEmpty, validators.contains(where: { storedFields[$0] != nil }) { return .invalidate }
        for name in received where headFields[name] != storedFields[name] { return .invalidate }
        if let length = headFields[.contentLength], Int(length) != Int(storedFields[.contentLength] ?? String(storedBodySize)) {
            return .invalidate
        }
        return .update(merge(stored: storedFields, notModified: headFields))
    }
}
