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
        #expect(with(.none).delay(afterAttempt: 3, random: { 0 }) == .seconds(4))
        #expect(with(.full).delay(afterAttempt: 3, random: { 0.25 }) == .seconds(1))
        #expect(with(.upperHalf).delay(afterAttempt: 3, random: { 0 }) == .seconds(2))
        #expect(with(.upperHalf).delay(afterAttempt: 3, random: { 1 }) == .seconds(4))
        #expect(with(.full).delay(afterAttempt: 3, random: { 7 }) == .seconds(4), "fractions are clamped")
        #expect(with(.full).delay(afterAttempt: 3, random: { .nan }) == .seconds(4), "one not finite counts as 1")
    }

    /// A server's `Retry-After` (or a reconnection's least wait) is a floor: the wait is never
    /// shorter, and still drawn when the draw is longer.
    @Test func theWaitIsNeverLessThanItsFloor() {
        #expect(with(.full).delay(afterAttempt: 3, atLeast: .seconds(3), random: { 0.25 }) == .seconds(3))
        #expect(with(.full).delay(afterAttempt: 3, atLeast: .seconds(3), random: { 1 }) == .seconds(4))
        #expect(with(.none).delay(afterAttempt: 7, atLeast: .seconds(90)) == .seconds(90), "above the cap too")
    }

    private func with(_ jitter: ExponentialBackoff.Jitter) -> ExponentialBackoff {
        ExponentialBackoff(initial: backoff.initial, maximum: backoff.maximum, jitter: jitter)
    }
}
