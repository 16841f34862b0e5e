import Courier
import Foundation
import HTTPTypes
import Testing

extension ResilienceTests {
    /// The retry policy's decisions as pure values.
    @Suite struct RetryPolicyTests {
        let policy = RetryPolicy(baseDelay: .seconds(1), maximumDelay: .seconds(5)).jitter(1)

        @Test(arguments: [408, 429, 500, 502, 503, 504])
        func retriesTemporaryStatuses(code: Int) {
            let decision = policy.decision(afterAttempt: 1, method: .get, isIdempotent: nil, status: .init(code: code))
            #expect(decision == .retry(after: .seconds(1), reason: .retryableStatus))
        }

        @Test(arguments: [200, 201, 204, 304, 400, 401, 403, 404, 409, 422, 501, 505])
        func doesNotRetryOtherStatuses(code: Int) {
            let decision = policy.decision(afterAttempt: 1, method: .get, isIdempotent: nil, status: .init(code: code))
            #expect(decision == .stop(.finalStatus))
        }

        @Test(arguments: [HTTPRequest.Method.get, .head, .put, .delete, .options, .trace])
        func retriesIdempotentMethods(method: HTTPRequest.Method) {
            #expect(policy.decision(afterAttempt: 1, method: method, isIdempotent: nil, status: .serviceUnavailable).shouldRetry)
            #expect(policy.decision(afterAttempt: 1, method: method, isIdempotent: true, status: .serviceUnavailable).shouldRetry)
        }

        @Test(arguments: [HTTPRequest.Method.post, .patch, .connect])
        func doesNotRetryOtherMethodsUnlessTheEndpointOptsIn(method: HTTPRequest.Method) {
            #expect(policy.decision(afterAttempt: 1, method: method, isIdempotent: nil, status: .serviceUnavailable) == .stop(.notIdempotent))
            #expect(policy.decision(afterAttempt: 1, method: method, isIdempotent: false, status: .serviceUnavailable) == .stop(.notIdempotent))
            #expect(policy.decision(afterAttempt: 1, method: method, isIdempotent: true, status: .serviceUnavailable).shouldRetry)
        }

        @Test func anEndpointThatIsNotIdempotentIsNeverRetried() {
            #expect(policy.decision(afterAttempt: 1, method: .get, isIdempotent: false, status: .serviceUnavailable) == .stop(.notIdempotent))
        }

        @Test(arguments: [CourierError.Kind.connectionLost, .noConnection, .timedOut])
        func retriesTemporaryErrors(kind: CourierError.Kind) {
            #expect(policy.decision(afterAttempt: 1, method: .get, isIdempotent: nil, error: kind) == .retry(after: .seconds(1), reason: .retryableError))
        }

        @Test(arguments: [CourierError.Kind.transport, .invalidResponse, .bodyTooLarge, .invalidRequest, .decodingFailed])
        func doesNotRetryOtherErrors(kind: CourierError.Kind) {
            #expect(policy.decision(afterAttempt: 1, method: .get, isIdempotent: nil, error: kind) == .stop(.finalError))
        }

        @Test func neverRetriesACancelledCallEvenWhenListed() {
            var policy = policy
            policy.retryableErrorKinds.insert(.cancelled)
            #expect(policy.decision(afterAttempt: 1, method: .get, isIdempotent: true, error: .cancelled) == .stop(.cancelled))
        }

        @Test func stopsAfterTheMaximumNumberOfAttempts() {
            #expect(policy.decision(afterAttempt: 2, method: .get, isIdempotent: nil, status: .badGateway).shouldRetry)
            #expect(policy.decision(afterAttempt: 3, method: .get, isIdempotent: nil, status: .badGateway) == .stop(.attemptsExhausted))
            #expect(RetryPolicy.none.decision(afterAttempt: 1, method: .get, isIdempotent: nil, status: .badGateway) == .stop(.attemptsExhausted))
        }

        @Test func defaultsAreDocumentedValues() {
            let policy = RetryPolicy.default
            #expect(policy.maximumAttempts == 3)
            #expect(policy.totalDeadline == .seconds(30))
            #expect(policy.retryableStatuses == [408, 429, 500, 502, 503, 504])
            #expect(policy.retryableMethods == [.get, .head, .put, .delete, .options, .trace])
            #expect(policy.retryableErrorKinds == [.connectionLost, .noConnection, .timedOut])
        }

        @Test func backoffBoundDoublesUpToTheCap() {
            let bounds = (1 ... 6).map { policy.backoffBound(afterAttempt: $0) }
            #expect(bounds == [.seconds(1), .seconds(2), .seconds(4), .seconds(5), .seconds(5), .seconds(5)])
            #expect(policy.backoffBound(afterAttempt: 10_000) == .seconds(5))
        }

        @Test func fullJitterScalesTheBoundByTheRandomFraction() {
            var policy = policy
            policy.random = .fixed(0)
            #expect(policy.backoffDelay(afterAttempt: 3) == .zero)
            policy.random = .fixed(0.25)
            #expect(policy.backoffDelay(afterAttempt: 3) == .seconds(1))
            policy.random = .fixed(7)
            #expect(policy.backoffDelay(afterAttempt: 3) == .seconds(4), "fractions are clamped to 0 ... 1")
        }

        @Test func systemJitterStaysWithinTheBound() {
            let policy = RetryPolicy(baseDelay: .seconds(1), maximumDelay: .seconds(3))
            for attempt in 1 ... 5 {
                for _ in 0 ..< 50 {
                    let delay = policy.backoffDelay(afterAttempt: attempt)
                    #expect(delay >= .zero && delay <= policy.backoffBound(afterAttempt: attempt))
                }
            }
        }

        @Test func honoursRetryAfterSeconds() {
            let decision = policy.decision(afterAttempt: 1, method: .get, isIdempotent: nil, status: .tooManyRequests, retryAfter: "12")
            #expect(decision == .retry(after: .seconds(12), reason: .retryAfter))
        }

        @Test func honoursRetryAfterHTTPDate() {
            let now = Date(timeIntervalSince1970: 1_445_412_470)  // Wed, 21 Oct 2015 07:27:50 GMT
            let decision = policy.decision(
                afterAttempt: 1, method: .get, isIdempotent: nil, status: .serviceUnavailable,
                retryAfter: "Wed, 21 Oct 2015 07:28:00 GMT", now: now
            )
            #expect(decision == .retry(after: .seconds(10), reason: .retryAfter))
        }

        @Test func parsesEveryRetryAfterForm() {
            let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
            #expect(RetryPolicy.retryAfterDelay("Sun, 06 Nov 1994 08:49:47 GMT", now: now) == .seconds(10))
            #expect(RetryPolicy.retryAfterDelay("Sunday, 06-Nov-94 08:49:47 GMT", now: now) == .seconds(10))
            #expect(RetryPolicy.retryAfterDelay("Sun Nov  6 08:49:47 1994", now: now) == .seconds(10))
            #expect(RetryPolicy.retryAfterDelay("Sun, 06 Nov 1994 08:00:00 GMT", now: now) == .zero, "a past date means no wait")
            #expect(RetryPolicy.retryAfterDelay(" 0 ", now: now) == .zero)
            #expect(RetryPolicy.retryAfterDelay("-5", now: now) == nil)
            #expect(RetryPolicy.retryAfterDelay("soon", now: now) == nil)
            #expect(RetryPolicy.retryAfterDelay("", now: now) == nil)
            #expect(RetryPolicy.retryAfterDelay("99999999999999999999999", now: now) == .seconds(Int64.max))
        }

        /// `Retry-After` is a floor (RFC 9110 §10.2.3): a longer random wait stands.
        @Test func retryAfterIsTheWaitsFloor() {
            let decision = policy.decision(afterAttempt: 2, method: .get, isIdempotent: nil, status: .serviceUnavailable, retryAfter: "1")
            #expect(decision == .retry(after: .seconds(2), reason: .retryAfter))
        }

        @Test func anUnreadableRetryAfterFallsBackToBackoff() {
            let decision = policy.decision(afterAttempt: 2, method: .get, isIdempotent: nil, status: .serviceUnavailable, retryAfter: "later")
            #expect(decision == .retry(after: .seconds(2), reason: .retryableStatus))
        }

        @Test func aRetryAfterBeyondTheBoundEndsTheRetries() {
            var policy = policy
            policy.maximumRetryAfter = .seconds(10)
            #expect(policy.decision(afterAttempt: 1, method: .get, isIdempotent: nil, status: .serviceUnavailable, retryAfter: "10").shouldRetry)
            #expect(
                policy.decision(afterAttempt: 1, method: .get, isIdempotent: nil, status: .serviceUnavailable, retryAfter: "11")
                    == .stop(.retryAfterTooLong)
            )
            #expect(
                policy.decision(afterAttempt: 1, method: .get, isIdempotent: nil, status: .serviceUnavailable, retryAfter: "99999999999999999999999")
                    == .stop(.retryAfterTooLong)
            )
        }

        @Test func doesNotStartAWaitThatEndsPastTheDeadline() {
            var policy = policy
            policy.totalDeadline = .seconds(10)
            #expect(policy.decision(afterAttempt: 1, method: .get, isIdempotent: nil, status: .badGateway, elapsed: .seconds(8)).shouldRetry)
            #expect(
                policy.decision(afterAttempt: 1, method: .get, isIdempotent: nil, status: .badGateway, elapsed: .seconds(9))
                    == .stop(.deadlineExceeded)
            )
            #expect(
                policy.decision(afterAttempt: 1, method: .get, isIdempotent: nil, status: .badGateway, retryAfter: "5", elapsed: .seconds(6))
                    == .stop(.deadlineExceeded)
            )
        }
    }
}

extension RetryPolicy {
    /// This policy with every wait the same `fraction` of its bound (`RandomSource.fixed`).
    func jitter(_ fraction: Double) -> RetryPolicy {
        var policy = self
        policy.random = .fixed(fraction)
        return policy
    }
}
