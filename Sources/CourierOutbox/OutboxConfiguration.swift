import Foundation

extension Outbox {
    /// How much an outbox holds: a write beyond either bound is refused with ``OutboxError/full(_:)``.
    public struct Limits: Sendable, Hashable {
        /// The most items waiting or parked at once.
        public var maximumItems: Int
        /// The most bytes their bodies and requests take in all.
        public var maximumBytes: Int64

        /// 1,000 items and 100 MiB by default.
        public init(maximumItems: Int = 1_000, maximumBytes: Int64 = 100 * 1024 * 1024) {
            self.maximumItems = maximumItems
            self.maximumBytes = maximumBytes
        }
    }

    /// How long an item waits after a transient failure, and when the outbox gives up on it.
    ///
    /// The wait doubles after each failure, from ``initialDelay`` up to ``maximumDelay``, with
    /// jitter, and is never less than the server's `Retry-After` (up to ``maximumRetryAfter``).
    /// Past ``maximumTransientFailures`` or ``maximumAge`` the item is parked with a ``OutboxItem/Failure``
    /// whose reason is ``OutboxItem/Failure/Reason/gaveUp``, and its group waits behind it until the
    /// app calls ``Outbox/retry(_:)`` (which starts both bounds again) or ``Outbox/discard(_:)``.
    public struct Backoff: Sendable, Hashable {
        /// The wait after the first failure.
        public var initialDelay: Duration
        /// The longest wait the doubling reaches.
        public var maximumDelay: Duration
        /// The longest `Retry-After` honoured; a longer one is cut to this.
        public var maximumRetryAfter: Duration
        /// The most transient failures an item goes through before the outbox gives up on it; nil
        /// for no bound. A failed connection doesn't count (being offline is a normal state, bounded
        /// by ``maximumAge``); a timeout, a dropped connection, `5xx`, `408`, `409`, `425` and `429` do.
        public var maximumTransientFailures: Int?
        /// How long after its enqueue (or the app's last ``Outbox/retry(_:)``) an item may still be
        /// tried after a transient failure; nil for no bound.
        public var maximumAge: Duration?

        /// 1 s, doubling up to 5 minutes; `Retry-After` up to an hour; giving up after 50 counted
        /// failures (about 4 hours of a failing server at the longest wait) or 7 days.
        ///
        /// Seven days is URLSession's default resource timeout and the retry window of Firebase's
        /// event functions; WorkManager and Firestore retry without end, which leaves a write stuck
        /// without a word: here the app hears of it (``OutboxChange/parked(_:_:)``) and decides.
        public init(
            initialDelay: Duration = .seconds(1), maximumDelay: Duration = .seconds(300), maximumRetryAfter: Duration = .seconds(3600),
            maximumTransientFailures: Int? = 50, maximumAge: Duration? = .seconds(7 * 24 * 3600)
        ) {
            self.initialDelay = initialDelay
            self.maximumDelay = maximumDelay
            self.maximumRetryAfter = maximumRetryAfter
            self.maximumTransientFailures = maximumTransientFailures
            self.maximumAge = maximumAge
        }
    }
}
