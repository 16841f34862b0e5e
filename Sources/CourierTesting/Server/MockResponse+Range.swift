extension MockResponse {
    /// `bytes` answered as a server that supports range requests would (RFC 9110 §14): a single
    /// satisfiable `Range` (`bytes=a-b`, `bytes=a-`, `bytes=-n`) gets `206` with its
    /// `Content-Range`, unless an `If-Range` doesn't match `etag`; an unsatisfiable one gets `416`;
    /// anything else the whole body with `200`. Every answer carries `Accept-Ranges: bytes`, and
    /// `ETag` unless `etag` is nil (a server without validators: an `If-Range` never matches then).
    ///
    /// ```swift
    /// server.route("GET", "/video.mp4") { request in .ranged(video, for: request, etag: "\"v1\"") }
    /// ```
    public static func ranged(
        _ bytes: [UInt8], for request: RecordedRequest, etag: String?, contentType: String = "application/octet-stream",
        headers: [MockHeader] = []
    ) -> MockResponse {
        let common = (etag.map { [MockHeader("ETag", $0)] } ?? []) + [MockHeader("Accept-Ranges", "bytes")] + headers
        let whole = MockResponse.bytes(bytes, contentType: contentType, headers: common)
        guard let value = request.header("Range"), request.header("If-Range").map({ etag != nil && $0 == etag }) ?? true else { return whole }
        guard let range = byteRange(value, length: bytes.count) else {
            return value.hasPrefix("bytes=") && !value.contains(",")
                ? MockResponse(status: 416, headers: [MockHeader("Content-Range", "bytes */\(bytes.count)")] + common)
                : whole
        }
        return MockResponse.bytes(
            Array(bytes[range]), status: 206, contentType: contentType,
            headers: [MockHeader("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(bytes.count)")] + common
        )
    }

    /// The satisfiable range a single `bytes=` range asks for, clamped to `length`; nil when unsatisfiable or not one range.
    private static func byteRange(_ value: String, length: Int) -> Range<Int>? {
        guard value.hasPrefix("bytes="), !value.contains(",") else { return nil }
        let spec = value.dropFirst("bytes=".count)
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        let first = Int(spec[..<dash])
        let last = Int(spec[spec.index(after: dash)...])
        switch (first, last) {
        case (let first?, let last?) where first <= last && first < length: return first..<min(last + 1, length)
        case (let first?, nil) where first < length && spec[spec.index(after: dash)...].isEmpty: return first..<length
        case (nil, let suffix?) where suffix > 0 && spec[..<dash].isEmpty: return max(0, length - suffix)..<length
        default: return nil
        }
    }
}
