import Courier
import Foundation

/// The keys a store's file holds responses for, so that looking up a key never stored (every
/// first call to a URL) skips SQLite.
///
/// The set may name keys no longer stored (the lookup then reads the file and finds nothing),
/// never leave out one this store or another store of this process wrote: writers add their keys
/// after each commit. Writes by another process are seen within ``lifetime``, as in
/// ``HotEntries``: the set is then checked against the file, and until that check is done every
/// lookup reads the file.
final class StoredKeys: Sendable {
    /// How long a check is trusted: the memo's lifetime, so both keep one promise about other processes' writes.
    static let lifetime = HotEntries.lifetime
    /// How many keys may be added past twice the count last loaded before the set is forgotten.
    static let slack = 4096

    /// What the set says about a key.
    enum Answer {
        /// The key may be stored: read the file.
        case mayBeStored
        /// The key is not stored.
        case notStored
        /// The set must be checked before it answers again: read the file, and run `check`.
        case check(Check)
    }

    /// A check to run against the file, then to pass to ``finishCheck(_:version:loaded:)``.
    struct Check: Sendable {
        fileprivate let generation: Int
        fileprivate let startedAt: ContinuousClock.Instant
        /// The file's change counter when the keys were last loaded; nil when they must be loaded.
        fileprivate let loadedVersion: Int?

        /// Whether the keys must be read again, given the file's change counter now.
        func needsLoad(version: Int) -> Bool { version != loadedVersion }
    }

    fileprivate struct State {
        /// `hashValue`s of the keys: a collision only costs a read of the file.
        var keys: Set<Int> = []
        /// Until when the set answers without a check; nil before the first load.
        var trustedUntil: ContinuousClock.Instant?
        /// When a failed check may be tried again.
        var retryAt: ContinuousClock.Instant?
        var loadedVersion: Int?
        var loadedCount = 0
        var checking = false
        var addedWhileChecking: [Int] = []
        /// Bumped by ``reset()``, so that a check begun on a replaced file is ignored.
        var generation = 0
    }

    private let state = Locked(State())

    /// Whether `key` may be stored.
    func answer(for key: CacheKey) -> Answer {
        let fingerprint = key.hashValue
        return state.withLock { state in
            let now = ContinuousClock.now
            if let trustedUntil = state.trustedUntil, now < trustedUntil {
                return state.keys.contains(fingerprint) ? .mayBeStored : .notStored
            }
            if state.checking || state.retryAt.map({ now < $0 }) == true { return .mayBeStored }
            state.checking = true
            return .check(Check(generation: state.generation, startedAt: now, loadedVersion: state.loadedVersion))
        }
    }

    /// Adds keys just committed to the file.
    func add(_ keys: some Sequence<CacheKey>) {
        state.withLock { state in
            for key in keys {
                let fingerprint = key.hashValue
                state.keys.insert(fingerprint)
                if state.checking { state.addedWhileChecking.append(fingerprint) }
            }
            // Removed keys stay until the next load. Once they could outnumber the stored ones (or
            // nothing is looked up to load the set), forget it: the next lookup loads it again.
            if state.keys.count > 2 * state.loadedCount + Self.slack { state.forget() }
        }
    }

    /// Ends a check: `version` is the file's change counter (nil when the check failed), and
    /// `loaded` every stored key when ``Check/needsLoad(version:)`` said so.
    func finishCheck(_ check: Check, version: Int?, loaded: [CacheKey]?) {
        state.withLock { state in
            // A check begun before the set was forgotten changes nothing, not even the one running now.
            guard check.generation == state.generation else { return }
            defer {
                state.checking = false
                state.addedWhileChecking = []
            }
            guard let version, loaded != nil || !check.needsLoad(version: version) else {
                state.retryAt = check.startedAt + Self.lifetime
                return
            }
            if let loaded {
                state.keys = Set(loaded.lazy.map(\.hashValue))
                state.keys.formUnion(state.addedWhileChecking)
                state.loadedCount = loaded.count
                state.loadedVersion = version
            }
            // From when the check began: a commit after it may be missed until the next one.
            state.trustedUntil = check.startedAt + Self.lifetime
        }
    }

    /// Forgets everything (the file was replaced): until loaded again, every lookup reads the file.
    func reset() {
        state.withLock { $0.forget() }
    }
}

extension StoredKeys.State {
    /// Back to unloaded; a check already running is ignored when it ends.
    fileprivate mutating func forget() {
        self = Self(generation: generation + 1)
    }
}
