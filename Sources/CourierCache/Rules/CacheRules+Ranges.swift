import HTTPTypes

extension CacheRules {
    /// How a stored response answers `request` (RFC 9111 §3.3, §4; RFC 9110 §14.2, §13.1.5); `nil`
    /// when it can't and the request goes to the network.
    ///
    /// - With its own `If-None-Match` or `If-Modified-Since` that finds a stored `200` unchanged: a
    ///   `304`, before any range is looked at (``requestFindsUnchanged(_:_:)``).
    /// - Without `Range`: a complete stored response answers whole; an incomplete one (a stored
    ///   `206`) never does.
    /// - With one byte range (`bytes=10-19`, `bytes=10-`, `bytes=-5`): a `206` cut from the stored
    ///   bytes when they hold every byte the range selects, or a `416` when the range selects
    ///   nothing in the representation (its length is known exactly: the stored complete body, or
    ///   the complete length a stored part states).
    /// - With an `If-Range` that isn't the stored strong `ETag` (strong comparison; a date never
    ///   matches): the complete response answers whole, an incomplete one doesn't answer.
    /// - Several ranges or a malformed `Range` go to the network (the cache never builds
    ///   `multipart/byteranges`), and so does a range over a stored body with a `Content-Encoding`.
    /// - Parameters:
    ///   - request: The request being answered.
    ///   - stored: The stored response's head.
    ///   - bodySize: The stored body's length; a part whose `Content-Range` disagrees with it is unusable.
    func storedAnswer(for request: HTTPRequest, from stored: HTTPResponse, bodySize: Int) -> StoredAnswer? {
        // The request's own conditions come before its range (RFC 9110 §13.2.2).
        if Self.requestFindsUnchanged(request, stored) { return .notModified }
        let isPart = stored.status.code == 206
        let values = request.headerFields[values: .range]
        guard !values.isEmpty else { return isPart ? nil : .whole }
        guard Self.ifRangeHolds(request, stored) else { return isPart ? nil : .whole }
        guard values.count == 1, let spec = ByteRangeSpec(values[0]), bodySize > 0, !Self.isEncoded(stored) else {
            return nil
        }
        let held: HeldRange
        if isPart {
            guard let part = Self.heldRange(of: stored.headerFields), part.count == Int64(bodySize) else { return nil }
            held = part
        } else {
            held = HeldRange(bytes: 0...(Int64(bodySize) - 1), completeLength: Int64(bodySize))
        }
        guard let wanted = spec.resolved(length: held.completeLength) else {
            return .unsatisfiable(completeLength: held.completeLength)
        }
        guard held.bytes.contains(wanted.lowerBound), held.bytes.contains(wanted.upperBound) else { return nil }
        let start = Int(wanted.lowerBound - held.bytes.lowerBound)
        let end = Int(wanted.upperBound - held.bytes.lowerBound) + 1
        return .part(HeldRange(bytes: wanted, completeLength: held.completeLength), bodyOffsets: start..<end)
    }

    /// Whether the stored response may answer `request` by itself (see ``storedAnswer(for:from:bodySize:)``);
    /// decided from the head alone, since a stored part states its length in `Content-Range`.
    func canAnswer(_ request: HTTPRequest, from stored: HTTPResponse) -> Bool {
        guard stored.status.code == 206 else {
            let values = request.headerFields[values: .range]
            guard !values.isEmpty, Self.ifRangeHolds(request, stored) else { return true }
            return values.count == 1 && ByteRangeSpec(values[0]) != nil && !Self.isEncoded(stored)
        }
        guard let held = Self.heldRange(of: stored.headerFields) else { return false }
        return storedAnswer(for: request, from: stored, bodySize: Int(held.count)) != nil
    }

    /// The response the cache sends for `answer`, from the stored response ready to serve (see
    /// ``servedResponse(for:now:)``): a `206` with its own `Content-Range` and `Content-Length`, or
    /// a bodiless `416` with `Content-Range: bytes */length`.
    func response(_ served: HTTPResponse, answering answer: StoredAnswer) -> HTTPResponse {
        switch answer {
        case .whole:
            return served
        case .part(let range, _):
            var response = served
            response.status = .partialContent
            response.headerFields[.contentRange] = range.fieldValue
            response.headerFields[.contentLength] = String(range.count)
            return response
        case .unsatisfiable(let length):
            var fields = HTTPFields()
            fields[.contentRange] = "bytes */\(length)"
            fields[.contentLength] = "0"
            return HTTPResponse(status: .rangeNotSatisfiable, headerFields: fields)
        case .notModified:
            return Self.notModified(from: served)
        }
    }

    /// The range a stored or received partial response holds: one `Content-Range` with a known length.
    static func heldRange(of fields: HTTPFields) -> HeldRange? {
        let values = fields[values: .contentRange]
        guard values.count == 1 else { return nil }
        return HeldRange(contentRange: values[0])
    }

    /// The strong `ETag` of a response: one well-formed entity tag, not weak (`W/`); `nil` otherwise.
    static func strongETag(of fields: HTTPFields) -> String? {
        guard let tag = entityTag(of: fields), !tag.hasPrefix("W/") else { return nil }
        return tag
    }

    /// Whether a request's `If-Range` (if any) lets its `Range` apply to the stored response: only an
    /// entity tag equal to the stored strong `ETag` does (RFC 9110 §13.1.5); a date is not compared.
    private static func ifRangeHolds(_ request: HTTPRequest, _ stored: HTTPResponse) -> Bool {
        let values = request.headerFields[values: .ifRange]
        guard !values.isEmpty else { return true }
        guard values.count == 1, let etag = strongETag(of: stored.headerFields) else { return false }
        return FieldList.trim(Substring(values[0])) == etag
    }

    /// Whether the stored body carries a content coding: its bytes may not be those the server's ranges count.
    private static func isEncoded(_ stored: HTTPResponse) -> Bool {
        FieldList.elements(stored.headerFields[values: .contentEncoding]).contains { $0.lowercased() != "identity" }
    }
}
