import Courier

/// The in-memory hit / miss / eviction counters of one store.
final class StoreCounters: Sendable {
    private let values = Locked((hits: 0, misses: 0, evictions: 0))

    /// Adds to the counters atomically.
    func add(hits: Int = 0, misses: Int = 0, evictions: Int = 0) {
        values.withLock { values in
            values.hits += hits
            values.misses += misses
            values.evictions += evictions
        }
    }

    /// A consistent snapshot of the three counters.
    var snapshot: (hits: Int, misses: Int, evictions: Int) { values.current }
}
