import Foundation
import HTTPTypes
import OpenAPIRuntime

/// The outcome of a call's non-generic core: a validated response, ready to decode.
@usableFromInline
struct ValidatedResponse: Sendable {
    @usableFromInline var head: HTTPResponse
    @usableFromInline var body: Data
    @usableFromInline var request: RequestSummary
    @usableFromInline var source: ResponseSource
    @usableFromInline var attempts: Int
    /// When the call began (the response's duration runs from here to the decoded value).
    @usableFromInline var started: ContinuousClock.Instant
    /// A transfer's body size (its bytes are not in ``body``).
    var bodySize: Int64? = nil
    /// A streamed call's body, unread.
    var stream: HTTPBody? = nil
}
