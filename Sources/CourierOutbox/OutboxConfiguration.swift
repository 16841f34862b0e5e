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

    /// How long an item waits after a passing failure: twice as long after each, from
    /// ``initialDelay`` up to ``maximumDelay``, with jitter, and never less than the server's
    /// `Retry-After` (up to ``maximumRetryAfter``).
    public struct Backoff: Sendable, Hashable {
        /// The wait after the first failure.
        public var initialDelay: Duration
        /// The longest wait the doubling reaches.
        public var maximumDelay: Duration
        /// The longest `Retry-After` honoured; a longer one is cut to this.
        public var maximumRetryAfter: Duration

        /// 1 s, doubling up to 5 minutes; `Retry-After` up to an hour.
        public init(initialDelay: Duration = .seconds(1), maximumDelay: Duration = .seconds(300), maximumRetryAfter: Duration = .seconds(3600)) {
            self.initialDelay = initialDelay
            self.maximumDelay = maximumDelay
            self.maximumRetryAfter = maximumRetryAfter
        }
    }
}
