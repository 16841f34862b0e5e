import Foundation

/// The one home of Courier's exponential backoff, which retries, the outbox, event-stream
/// reconnection and the cache's storage breaker each configure: a bound that doubles from
/// `initial` after each attempt, up to `maximum` (the cap), a wait drawn within it (the jitter),
/// and never less than the server asked for (a `Retry-After` floor).
package struct ExponentialBackoff: Sendable, Hashable {
    /// How much of the bound a wait may leave out, at random, so that many clients failing at once
    /// don't come back at once.
    package enum Jitter: Sendable, Hashable {
        /// The bound itself.
        case none
        /// Anywhere from nothing to the bound ("full jitter").
        case full
        /// Between half the bound and the bound.
        case upperHalf
    }

    /// The bound after the first attempt.
    package var initial: Duration
    /// The largest bound.
    package var maximum: Duration
    /// How a wait is drawn within the bound.
    package var jitter: Jitter

    package init(initial: Duration, maximum: Duration, jitter: Jitter = .none) {
        self.initial = initial
        self.maximum = maximum
        self.jitter = jitter
    }

    /// `min(maximum, initial × 2^(attempt − 1))`, never below zero; `attempt` counts from 1.
    package func bound(afterAttempt attempt: Int) -> Duration {
        let exponent = Double(min(max(attempt - 1, 0), 62))
        let bound = initial.inSeconds * pow(2, exponent)
        guard bound.isFinite, bound < maximum.inSeconds else { return maximum }
        return .seconds(max(bound, 0))
    }

    /// The wait after `attempt`: within ``bound(afterAttempt:)`` as ``jitter`` draws it, and no
    /// less than `floor` (what a server's `Retry-After` asked, a reconnection's least wait).
    /// `random` gives a fraction in `0...1` (clamped; one that is not finite counts as 1).
    package func delay(afterAttempt attempt: Int, atLeast floor: Duration? = nil, random: () -> Double = { 1 }) -> Duration {
        let bound = bound(afterAttempt: attempt)
        let drawn = random()
        let fraction = drawn.isFinite ? min(max(drawn, 0), 1) : 1
        let wait: Duration = switch jitter {
        case .none: bound
        case .full: .seconds(bound.inSeconds * fraction)
        case .upperHalf: .seconds(bound.inSeconds * (0.5 + 0.5 * fraction))
        }
        return max(wait, floor ?? .zero)
    }
}
