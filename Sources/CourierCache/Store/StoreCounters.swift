import Foundation

/// The in-memory hit / miss / eviction counters of one store.
///
/// `@unchecked Sendable` is safe: the only stored property is `values`, and every read and write
/// of it happens between `lock.lock()` and `lock.unlock()`, so no two threads ever access it concurrently.
final class StoreCounters: @unchecked Sendable {
    private let lock = NSLock()
    private var values = (hits: 0, misses: 0, evictions: 0)

    /// Adds to the counters atomically.
    func add(hits: Int = 0, misses: Int = 0, evictions: Int = 0) {
        lock.lock()
        defer { lock.unlock() }
        values.hits += hits
        values.misses += misses
        values.evictions += evictions
    }

    /// A consistent snapshot of the three counters.
    var snapshot: (hits: Int, misses: Int, evictions: Int) {
        lock.lock()
        defer { lock.unlock() }
        return values
    }
}
