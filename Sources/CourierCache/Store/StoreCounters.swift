import Courier

/// The in-memory counters of one store: hits, misses, evictions, failed operations and recoveries.
final class StoreCounters: Sendable {
    struct Values: Sendable {
        var hits = 0
        var misses = 0
        var evictions = 0
        var failures = 0
        var recoveries = 0
    }

    private let values = Locked(Values())

    /// Adds to the counters atomically.
    func add(hits: Int = 0, misses: Int = 0, evictions: Int = 0, failures: Int = 0, recoveries: Int = 0) {
        values.withLock { values in
            values.hits += hits
            values.misses += misses
            values.evictions += evictions
            values.failures += failures
            values.recoveries += recoveries
        }
    }

    /// A consistent snapshot of the counters.
    var snapshot: Values { values.current }
}
