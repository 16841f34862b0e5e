/// What a ``RetryPolicy`` decided after an attempt: wait and retry, or stop, with the reason.
package struct RetryDecision: Sendable, Hashable, CustomStringConvertible {
    /// How long to wait before the next attempt, or nil to stop.
    package let delay: Duration?
    /// Why.
    package let reason: Reason

    /// Retry after waiting `delay`.
    /// - Parameters:
    ///   - delay: The wait before the next attempt.
    ///   - reason: Why the attempt is retried.
    package static func retry(after delay: Duration, reason: Reason) -> RetryDecision {
        RetryDecision(delay: delay, reason: reason)
    }

    /// Stop and hand the last response or error to the caller.
    /// - Parameter reason: Why the request is not retried.
    package static func stop(_ reason: Reason) -> RetryDecision {
        RetryDecision(delay: nil, reason: reason)
    }

    /// Whether another attempt follows.
    package var shouldRetry: Bool { delay != nil }

    /// `retry after 1.5 seconds (retryableStatus)` or `stop (attemptsExhausted)`.
    package var description: String {
        delay.map { "retry after \($0) (\(reason))" } ?? "stop (\(reason))"
    }

    /// Why a request is, or is not, retried; a struct with static members so reasons can be added.
    package struct Reason: Sendable, Hashable, CustomStringConvertible {
        /// A stable, short identifier, safe as a metric label.
        package let identifier: String
        private init(_ identifier: String) { self.identifier = identifier }

        /// Retrying: the status is temporary.
        package static let retryableStatus = Reason("retryableStatus")
        /// Retrying: the error is temporary.
        package static let retryableError = Reason("retryableError")
        /// Retrying after the wait the server asked for in `Retry-After`.
        package static let retryAfter = Reason("retryAfter")
        /// Stopping: the response is not a temporary failure (a success, or a final error status).
        package static let finalStatus = Reason("finalStatus")
        /// Stopping: the error is not temporary.
        package static let finalError = Reason("finalError")
        /// Stopping: the call was cancelled.
        package static let cancelled = Reason("cancelled")
        /// Stopping: the method is not idempotent and the endpoint did not opt in.
        package static let notIdempotent = Reason("notIdempotent")
        /// Stopping: the request body can be sent only once.
        package static let bodyNotReplayable = Reason("bodyNotReplayable")
        /// Stopping: the last allowed attempt was made.
        package static let attemptsExhausted = Reason("attemptsExhausted")
        /// Stopping: the wait would end past the total deadline.
        package static let deadlineExceeded = Reason("deadlineExceeded")
        /// Stopping: the server's `Retry-After` is longer than the policy honours.
        package static let retryAfterTooLong = Reason("retryAfterTooLong")

        /// The identifier.
        package var description: String { identifier }
    }
}
