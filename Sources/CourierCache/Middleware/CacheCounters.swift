import Courier

/// What a cache counts over its life (hits, misses, evictions, failed storage operations), and
/// whether its storage is failing now, so an outage is logged once, not once per call.
final class CacheCounters: Sendable {
    struct Values: Sendable {
        var hits = 0
        var misses = 0
        var evictions = 0
        var failures = 0
        /// Whether the last storage operation failed.
        var failing = false
    }

    private let values = Locked(Values())

    /// A consistent snapshot of the counts.
    var snapshot: Values { values.current }

    /// Adds to the counts atomically.
    func add(hits: Int = 0, misses: Int = 0, evictions: Int = 0) {
        values.withLock { values in
            values.hits += hits
            values.misses += misses
            values.evictions += evictions
        }
    }

    /// Counts a failed storage operation; true when the storage worked until now (log it then).
    func failed() -> Bool {
        values.withLock { values in
            values.failures += 1
            defer { values.failing = true }
            return !values.failing
        }
    }

    /// Notes a storage operation that worked; true when it ends a run of failures.
    func worked() -> Bool {
        values.withLock { values in
            defer { values.failing = false }
            return values.failing
        }
    }
}
