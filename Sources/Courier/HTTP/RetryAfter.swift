import Foundation

extension RetryPolicy {
    /// The wait a `Retry-After` field value asks for (RFC 9110 §10.2.3), or nil when it is unreadable.
    ///
    /// Accepts delay-seconds (`120`) and an HTTP-date (`Wed, 21 Oct 2015 07:28:00 GMT`, and the
    /// obsolete RFC 850 and asctime forms). A date in the past means no wait.
    /// - Parameters:
    ///   - value: The field value.
    ///   - now: The current date, to turn an HTTP-date into a wait.
    /// - Returns: The wait, never negative, or nil.
    package static func retryAfterDelay(_ value: String, now: Date) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.allSatisfy(\.isASCIIDigit) {
            // More digits than fit in 64 bits: a wait far longer than any policy honours.
            return .seconds(Int64(text) ?? .max)
        }
        guard let date = HTTPDate.parse(text) else { return nil }
        return .seconds(max(date.timeIntervalSince(now), 0))
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isWholeNumber }
}
