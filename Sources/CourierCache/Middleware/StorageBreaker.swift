import Courier
import Foundation

/// A circuit breaker in front of a cache's storage: after an operation fails (an error or the
/// storage's timeout), calls skip the storage for a cool-off and go to the network with no added
/// wait; then one operation probes it. A probe that works closes the breaker; one that fails
/// doubles the cool-off, from 1 s up to 30 s. So a database that is down or frozen costs a call its
/// timeout once, not every call, and its set-up is tried again once per cool-off, not per call.
///
/// Its time is a monotonic clock's (``HTTPCache``'s uptime), so a wall clock set back an hour
/// can't rest the storage for that hour. Only a lookup that works closes it (see
/// `ObservedStorage.run`): a store that was under way when the storage failed says nothing of it now.
final class StorageBreaker: Sendable {
    /// What an operation may do now.
    enum Admission: Equatable {
        /// The storage works: go.
        case closed
        /// The cool-off is over and nobody is probing: this operation probes.
        case probe
        /// Resting: skip the storage.
        case skip
    }

    /// The cool-off after the breaker opens and after each probe that fails: 1 s, doubling up to 30 s.
    static let coolOffs = ExponentialBackoff(initial: .seconds(1), maximum: .seconds(30))

    private struct State {
        /// When the cool-off ends, on the uptime clock.
        var openUntil: Duration?
        /// The probes that failed since the breaker last closed.
        var failedProbes = 0
        var probing = false
        var skipped = 0
    }

    private let state = Locked(State())

    /// Whether calls use the storage as usual.
    var isClosed: Bool { state.withLock { $0.openUntil == nil } }

    /// Operations skipped so far.
    var skipped: Int { state.withLock { $0.skipped } }

    func admit(at now: Duration) -> Admission {
        state.withLock { state in
            guard let until = state.openUntil else { return .closed }
            guard now >= until, !state.probing else {
                state.skipped += 1
                return .skip
            }
            state.probing = true
            return .probe
        }
    }

    /// A lookup reached the storage and worked: the breaker closes.
    func worked() {
        state.withLock { state in
            state.openUntil = nil
            state.failedProbes = 0
            state.probing = false
        }
    }

    /// An operation failed; the cool-off, and whether this failure opened the breaker (log it then).
    func failed(at now: Duration, probing: Bool) -> (coolOff: TimeInterval, opened: Bool) {
        state.withLock { state in
            let opened = state.openUntil == nil
            if probing {
                state.failedProbes += 1
                state.probing = false
            }
            let coolOff = Self.coolOffs.bound(afterAttempt: state.failedProbes + 1)
            state.openUntil = now + coolOff
            return (coolOff.inSeconds, opened)
        }
    }

    /// A probe that said nothing of the storage (cancelled, answered from memory, or not a lookup):
    /// the next operation probes instead.
    func released() {
        state.withLock { $0.probing = false }
    }
}
