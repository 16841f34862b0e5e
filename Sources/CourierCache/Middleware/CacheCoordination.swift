import Courier
import Foundation

/// What copies of one ``HTTPCache`` share: the responses being written, the misses going to the
/// network (and the name it claims them by across a fleet), the entries being revalidated in the
/// background, the storage's breaker, and whether the misplaced-credentials error was logged.
final class CacheCoordination: Sendable {
    let writes = StoresInFlight()
    let misses = MissFlights()
    /// Who this cache is when it claims a flight in a storage other processes share.
    let claimant = UUID()
    let breaker = StorageBreaker()
    /// The storage's totals when last read, for ``HTTPCache/statistics()`` while it can't be read.
    let lastTotals = Locked(CacheTotals(count: 0, totalBytes: 0))

    private struct State {
        var revalidating: Set<CacheKey> = []
        var warnedAboutCredentials = false
        /// How many times everything was cleared, and each partition.
        var clearsOfEverything = 0
        var clears: [String: Int] = [:]
    }

    private let state = Locked(State())

    /// Marks `key` as being revalidated; false when a revalidation of it already runs.
    func beginRevalidation(of key: CacheKey) -> Bool {
        state.withLock { $0.revalidating.insert(key).inserted }
    }

    func endRevalidation(of key: CacheKey) {
        _ = state.withLock { $0.revalidating.remove(key) }
    }

    /// The partition's generation: it changes when the partition (or everything) is cleared. A call
    /// stores its response only in the generation it started in, so a response that was on its
    /// way while its user signed out never lands after the clear.
    func generation(of partition: String) -> Int {
        state.withLock { $0.clearsOfEverything + ($0.clears[partition] ?? 0) }
    }

    /// Starts a new generation of `partition`, or of every partition when nil.
    func clearing(_ partition: String?) {
        state.withLock { state in
            if let partition { state.clears[partition, default: 0] += 1 } else { state.clearsOfEverything += 1 }
        }
    }

    /// True the first time only.
    func shouldWarnAboutCredentials() -> Bool {
        state.withLock { state in
            defer { state.warnedAboutCredentials = true }
            return !state.warnedAboutCredentials
        }
    }
}
