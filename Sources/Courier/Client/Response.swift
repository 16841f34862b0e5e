import HTTPTypes

/// A decoded value with the evidence of how it was obtained.
public struct Response<Value: Sendable>: Sendable {
    /// The decoded value.
    public var value: Value
    /// The status and header fields.
    public var head: HTTPResponse
    /// The request as sent (method and redacted URL).
    public var request: RequestSummary
    /// Where the value came from: network, cache, revalidated or stale.
    public var source: ResponseSource
    /// Wall time from building the request to the decoded value.
    public var duration: Duration
    /// How many times the transport was called (more than one after retries or a token refresh).
    public var attempts: Int
    /// The size of the response body in bytes.
    public var bodySize: Int
    /// The client's secret list, for the description.
    @usableFromInline var redaction: Redaction

    /// Creates a response from its parts.
    @usableFromInline
    init(
        value: Value, head: HTTPResponse, request: RequestSummary, source: ResponseSource, duration: Duration, attempts: Int,
        bodySize: Int, redaction: Redaction
    ) {
        self.value = value
        self.head = head
        self.request = request
        self.source = source
        self.duration = duration
        self.attempts = attempts
        self.bodySize = bodySize
        self.redaction = redaction
    }

    /// The same response with its value transformed.
    public func map<T: Sendable>(_ transform: (Value) throws -> T) rethrows -> Response<T> {
        Response<T>(
            value: try transform(value), head: head, request: request, source: source,
            duration: duration, attempts: attempts, bodySize: bodySize, redaction: redaction
        )
    }
}

extension Response: CustomReflectable {
    /// The response as `print` and the debugger show it: secret header fields (`Set-Cookie`, and
    /// any other on the client's secret list) read `REDACTED`.
    public var customMirror: Mirror {
        let children: [(label: String?, value: Any)] = [
            ("value", value), ("status", head.status.code), ("headers", redaction.redact(head.headerFields)), ("request", request),
            ("source", source), ("duration", duration), ("attempts", attempts), ("bodySize", bodySize),
        ]
        return Mirror(self, children: children, displayStyle: .struct)
    }
}
