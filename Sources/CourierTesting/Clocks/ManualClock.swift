import Courier

/// A clock whose time moves only when a test says so, for testing code that waits (retries, timeouts).
///
/// Code under test sleeps on it as on any clock; the test calls ``advance(by:)`` and every sleeper
/// whose deadline has come resumes. ``waitForSleepers(count:)`` lets a test wait until the code has
/// started to sleep, and ``sleeps`` records every requested wait, so a schedule can be checked
/// without sleeping for real. Cancelling a sleeping task throws `CancellationError` at once.
///
/// ```swift
/// let clock = ManualClock()
/// let call = Task { try await client.send(Ping()) }
/// await clock.waitForSleepers()
/// clock.advance(by: .seconds(1))
/// ```
public final class ManualClock: Clock, Sendable {
    /// A point on a manual clock: the time since the clock was created.
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable {
        /// The time since the clock's origin.
        public var offset: Duration

        /// Creates an instant at an offset from the clock's origin.
        /// - Parameter offset: The time since the origin.
        public init(offset: Duration) { self.offset = offset }

        /// The instant `duration` later.
        /// - Parameter duration: The time to add.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }

        /// The time from this instant to `other`.
        /// - Parameter other: The later (or earlier) instant.
        public func duration(to other: Instant) -> Duration { other.offset - offset }

        /// Whether `lhs` comes before `rhs`.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct Watcher {
        let count: Int
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Int: Sleeper] = [:]
        var watchers: [Int: Watcher] = [:]
        var sleeps: [Duration] = []

        mutating func makeID() -> Int {
            nextID += 1
            return nextID
        }

        /// Removes the watchers satisfied by the current number of sleepers.
        mutating func satisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
            let ready = watchers.filter { $0.value.count <= sleepers.count }
            for id in ready.keys { watchers[id] = nil }
            return ready.values.map(\.continuation)
        }
    }

    private let state = Locked(State())

    /// Creates a clock at offset zero.
    public init() {}

    /// The current instant.
    public var now: Instant { state.withLock { $0.now } }

    /// Zero: a manual clock is exact.
    public var minimumResolution: Duration { .zero }

    /// Every wait requested so far, in order, as the time from the request to its deadline.
    public var sleeps: [Duration] { state.withLock { $0.sleeps } }

    /// The deadlines of the tasks sleeping now, earliest first.
    public var pendingDeadlines: [Instant] { state.withLock { $0.sleepers.values.map(\.deadline).sorted() } }

    /// Suspends until the clock reaches `deadline`, or throws `CancellationError` when the task is cancelled.
    /// - Parameters:
    ///   - deadline: The instant to wake at.
    ///   - tolerance: Ignored: a manual clock is exact.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = state.withLock { $0.makeID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Start { case sleep([CheckedContinuation<Void, Never>]), wake, cancel }
                let start = state.withLock { state -> Start in
                    state.sleeps.append(state.now.duration(to: deadline))
                    // Checked under the lock: a cancellation handler that ran before this found no sleeper.
                    if Task.isCancelled { return .cancel }
                    if deadline <= state.now { return .wake }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return .sleep(state.satisfiedWatchers())
                }
                switch start {
                case .sleep(let watchers): for watcher in watchers { watcher.resume() }
                case .wake: continuation.resume()
                case .cancel: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come, earliest first.
    /// - Parameter duration: How far to move; negative values are ignored.
    public func advance(by duration: Duration) {
        let woken = state.withLock { state -> [Sleeper] in
            if duration > .zero { state.now = state.now.advanced(by: duration) }
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.sorted { $0.deadline < $1.deadline }
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    /// Moves time to the earliest pending deadline and wakes the sleepers due then; does nothing when none sleeps.
    public func advanceToNextDeadline() {
        guard let next = pendingDeadlines.first else { return }
        advance(by: now.duration(to: next))
    }

    /// Waits until at least `count` tasks are sleeping on the clock (or the waiting task is cancelled).
    /// - Parameter count: How many sleepers to wait for.
    public func waitForSleepers(count: Int = 1) async {
        let id = state.withLock { $0.makeID() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if Task.isCancelled || state.sleepers.count >= count { return true }
                    state.watchers[id] = Watcher(count: count, continuation: continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let watcher = state.withLock { $0.watchers.removeValue(forKey: id) }
            watcher?.continuation.resume()
        }
    }
}
