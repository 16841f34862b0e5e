import Courier

/// The in-memory counters of one store: hits, misses, evictions, failed operations and recoveries.
package final class StoreCounters: Sendable {
    /// The counts at one moment.
    package struct Values: Sendable {
        package var hits = 0
        package var misses = 0
        package var evictions = 0
        package var failures = 0
        package var recoveries = 0
    }

    private let values = Locked(Values())

    /// Counters at zero.
    package init() {}

    /// Adds to the counters atomically.
    package func add(hits: Int = 0, misses: Int = 0, evictions: Int = 0, failures: Int = 0, recoveries: Int = 0) {
        values.withLock { values in
            values.hits += hits
            values.misses += misses
            values.evictions += evictions
            values.failures += failures
            values.recoveries += recoveries
        }
    }

    /// A consistent snapshot of the counters.
    package var snapshot: Values { values.current }
}
