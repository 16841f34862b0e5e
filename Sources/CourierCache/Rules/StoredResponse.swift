import Foundation
import HTTPTypes

/// What the rules need to know about a stored response: its head, its timing and its vary selection.
///
/// The body is deliberately absent: every rule can be evaluated without loading it.
package struct StoredResponse: Sendable, Hashable {
    /// The stored status and header fields.
    package var response: HTTPResponse
    /// When the request that produced the response was sent (RFC 9111 §4.2.3 `request_time`).
    package var requestTime: Date
    /// When the response was received (RFC 9111 §4.2.3 `response_time`).
    package var responseTime: Date
    /// The request values the response was selected by; see ``VarySelection``.
    package var varySelection: VarySelection

    /// Creates a stored response description.
    package init(response: HTTPResponse, requestTime: Date, responseTime: Date, varySelection: VarySelection) {
        self.response = response
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.varySelection = varySelection
    }
}
