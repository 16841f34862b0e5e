import Courier
import Testing

/// The one backoff retries, the outbox, event-stream reconnection and the storage breaker share.
@Suite struct ExponentialBackoffTests {
    let backoff = ExponentialBackoff(initial: .seconds(1), maximum: .seconds(30))

    @Test func theBoundDoublesFromTheInitialUpToTheMaximum() {
        #expect((0...7).map { backoff.bound(afterAttempt: $0) } == [1, 1, 2, 4, 8, 16, 30, 30].map { Duration.seconds($0) })
        #expect(backoff.bound(afterAttempt: .max) == .seconds(30))
        #expect(ExponentialBackoff(initial: .seconds(-1), maximum: .seconds(30)).bound(afterAttempt: 3) == .zero)
    }

    @Test func eachJitterDrawsWithinItsShareOfTheBound() {
        #expect(backoff.delay(afterAttempt: 3, jitter: .none, random: { 0 }) == .seconds(4))
        #expect(backoff.delay(afterAttempt: 3, jitter: .full, random: { 0.25 }) == .seconds(1))
        #expect(backoff.delay(afterAttempt: 3, jitter: .upperHalf, random: { 0 }) == .seconds(2))
        #expect(backoff.delay(afterAttempt: 3, jitter: .upperHalf, random: { 1 }) == .seconds(4))
        #expect(backoff.delay(afterAttempt: 3, jitter: .full, random: { 7 }) == .seconds(4), "fractions are clamped")
        #expect(backoff.delay(afterAttempt: 3, jitter: .full, random: { .nan }) == .seconds(4), "one not finite counts as 1")
    }
}
