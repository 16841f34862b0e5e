import Foundation
import HTTPTypes

extension RetryPolicy {
    /// Decides what follows an attempt; a pure function of its arguments and ``random``.
    ///
    /// Checks, in order: cancellation, the method, the outcome (status or error), the attempt count,
    /// `Retry-After` against ``maximumRetryAfter``, then the wait against ``totalDeadline``.
    /// - Parameters:
    ///   - attempt: The number of the attempt that just ended, from 1.
    ///   - method: The request's method.
    ///   - isIdempotent: The endpoint's declaration (`RequestContext.isIdempotent`), or nil when unknown.
    ///   - status: The response status, when a response arrived.
    ///   - error: The error kind, when the attempt failed without a response.
    ///   - retryAfter: The response's `Retry-After` field value, if any.
    ///   - elapsed: The time since the first attempt started.
    ///   - now: The current date, to resolve an HTTP-date `Retry-After`.
    /// - Returns: Retry after a delay, or stop, with the reason.
    package func decision(
        afterAttempt attempt: Int,
        method: HTTPRequest.Method,
        isIdempotent: Bool?,
        status: HTTPResponse.Status? = nil,
        error: CourierError.Kind? = nil,
        retryAfter: String? = nil,
        elapsed: Duration = .zero,
        now: Date = Date()
    ) -> RetryDecision {
        if error == .cancelled { return .stop(.cancelled) }
        guard allowsRetry(of: method, isIdempotent: isIdempotent) else { return .stop(.notIdempotent) }
        let reason: RetryDecision.Reason
        if let error {
            guard retryableErrorKinds.contains(error) else { return .stop(.finalError) }
            reason = .retryableError
        } else if let status {
            guard retryableStatuses.contains(status.code) else { return .stop(.finalStatus) }
            reason = .retryableStatus
        } else {
            return .stop(.finalStatus)
        }
        guard attempt < maximumAttempts else { return .stop(.attemptsExhausted) }

        let delay: Duration
        let finalReason: RetryDecision.Reason
        if status != nil, let retryAfter, let requested = Self.retryAfterDelay(retryAfter, now: now) {
            guard requested <= maximumRetryAfter else { return .stop(.retryAfterTooLong) }
            delay = backoff.delay(afterAttempt: attempt, atLeast: requested, random: random.nextFraction)
            finalReason = .retryAfter
        } else {
            delay = backoffDelay(afterAttempt: attempt)
            finalReason = reason
        }
        guard elapsed + delay < totalDeadline else { return .stop(.deadlineExceeded) }
        return .retry(after: delay, reason: finalReason)
    }

    /// Whether the method may be sent again: never when the endpoint says it is not idempotent; always
    /// when it says it is (a POST with an idempotency key); otherwise when ``retryableMethods`` lists it.
    /// - Parameters:
    ///   - method: The request's method.
    ///   - isIdempotent: The endpoint's declaration, or nil when unknown.
    /// - Returns: Whether a retry is allowed for this method.
    package func allowsRetry(of method: HTTPRequest.Method, isIdempotent: Bool?) -> Bool {
        switch isIdempotent {
        case false?: false
        case true?: true
        case nil: retryableMethods.contains(method)
        }
    }

    /// The upper bound of the random wait after attempt `attempt`: `min(maximumDelay, baseDelay * 2^(attempt-1))`.
    /// - Parameter attempt: The number of the attempt that just ended, from 1.
    /// - Returns: The bound of the wait.
    package func backoffBound(afterAttempt attempt: Int) -> Duration {
        backoff.bound(afterAttempt: attempt)
    }

    /// The wait after attempt `attempt`: a random fraction (full jitter) of ``backoffBound(afterAttempt:)``.
    /// - Parameter attempt: The number of the attempt that just ended, from 1.
    /// - Returns: A wait in `0 ... backoffBound(afterAttempt: attempt)`.
    package func backoffDelay(afterAttempt attempt: Int) -> Duration {
        backoff.delay(afterAttempt: attempt, random: random.nextFraction)
    }

    private var backoff: ExponentialBackoff { ExponentialBackoff(initial: baseDelay, maximum: maximumDelay, jitter: .full) }
}
