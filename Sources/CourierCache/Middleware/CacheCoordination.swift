import Courier

/// What copies of one ``HTTPCache`` share: the responses being written, the entries being
/// revalidated in the background, the storage's breaker, and whether the misplaced-credentials
/// error was logged.
final class CacheCoordination: Sendable {
    let writes = StoresInFlight()
    let breaker = StorageBreaker()
    /// The storage's totals when last read, for ``HTTPCache/statistics()`` while it can't be read.
    let lastTotals = Locked(CacheTotals(entryCount: 0, totalBytes: 0))

    private struct State {
        var revalidating: Set<CacheKey> = []
        var warnedAboutCredentials = false
    }

    private let state = Locked(State())

    /// Marks `key` as being revalidated; false when a revalidation of it already runs.
    func beginRevalidation(of key: CacheKey) -> Bool {
        state.withLock { $0.revalidating.insert(key).inserted }
    }

    func endRevalidation(of key: CacheKey) {
        _ = state.withLock { $0.revalidating.remove(key) }
    }

    /// True the first time only.
    func shouldWarnAboutCredentials() -> Bool {
        state.withLock { state in
            defer { state.warnedAboutCredentials = true }
            return !state.warnedAboutCredentials
        }
    }
}
