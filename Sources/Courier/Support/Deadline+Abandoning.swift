import Foundation

/// Work a deadline gave up on that hasn't ended yet (a query to a database that hangs keeps its
/// task, and its connection, until the database answers or the connection dies), counted so that
/// a user of ``Deadline/abandoning(_:to:_:)`` can refuse new work while too much of it lingers.
package final class AbandonedWork: Sendable {
    /// The most abandoned operations left running before ``isFull``.
    package let limit: Int
    private let count = Locked(0)

    /// A count of at most `limit` operations.
    package init(limit: Int) { self.limit = max(limit, 1) }

    /// How many operations were abandoned and haven't ended.
    package var current: Int { count.current }

    /// Whether ``limit`` operations or more are still running after they were abandoned.
    package var isFull: Bool { count.current >= limit }

    fileprivate func add(_ delta: Int) { count.withLock { $0 += delta } }
}

extension Deadline {
    /// Runs `operation` in one task of its own and returns its result, or throws `expired` once the
    /// deadline passes (or `CancellationError` when the caller is cancelled) without waiting for
    /// an operation that ignores cancellation: it is cancelled and left to end on its own, counted
    /// in `abandoned` until it does. No task waits for the deadline: ``DeadlineTimer`` does.
    ///
    /// ``bound(_:)`` is the other member of the family: it waits for the work it cancels, for a
    /// transport that answers cancellation. This one is for work that may not (a database query).
    package func abandoning<T: Sendable>(
        _ expired: @escaping @Sendable () -> any Error, to abandoned: AbandonedWork,
        _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let race = AbandonableRace<T>(abandoned: abandoned)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard race.start(continuation) else { return }
                let task = Task {
                    let result: Result<T, any Error>
                    do { result = .success(try await operation()) } catch { result = .failure(error) }
                    race.finish(with: result)
                }
                let timer = schedule { race.giveUp(throwing: expired()) }
                race.running(task, timer: timer)
            }
        } onCancel: {
            race.giveUp(throwing: CancellationError())
        }
    }
}

/// Who ends an ``Deadline/abandoning(_:to:_:)`` first: its operation, its deadline or its
/// caller's cancellation. Whoever comes first resumes the caller; a give-up counts the operation
/// as abandoned until it ends.
private final class AbandonableRace<T: Sendable>: Sendable {
    private enum State {
        case notStarted
        case cancelledBeforeStart(any Error)
        case waiting(CheckedContinuation<T, any Error>, task: Task<Void, Never>?, timer: DeadlineTimer.Token?)
        case finished
        case abandoned
    }

    private let state = Locked(State.notStarted)
    private let abandoned: AbandonedWork

    init(abandoned: AbandonedWork) { self.abandoned = abandoned }

    /// Holds the caller's continuation; false (the caller resumed) when it was cancelled first.
    func start(_ continuation: CheckedContinuation<T, any Error>) -> Bool {
        let early: (any Error)? = state.withLock { state in
            if case .cancelledBeforeStart(let error) = state {
                state = .finished
                return error
            }
            state = .waiting(continuation, task: nil, timer: nil)
            return nil
        }
        guard let early else { return true }
        continuation.resume(throwing: early)
        return false
    }

    /// Notes the operation's task and timer, or cancels them when the race already ended.
    func running(_ task: Task<Void, Never>, timer: DeadlineTimer.Token) {
        let over = state.withLock { state in
            guard case .waiting(let continuation, _, _) = state else { return true }
            state = .waiting(continuation, task: task, timer: timer)
            return false
        }
        if over {
            timer.cancel()
            task.cancel()
        }
    }

    /// The operation ended: its result goes to the caller, or it leaves the abandoned count.
    func finish(with result: Result<T, any Error>) {
        let ending: (CheckedContinuation<T, any Error>, DeadlineTimer.Token?)?? = state.withLock { state in
            switch state {
            case .waiting(let continuation, _, let timer):
                state = .finished
                return (continuation, timer)
            case .abandoned:
                state = .finished
                return .some(nil)
            case .notStarted, .cancelledBeforeStart, .finished:
                return nil
            }
        }
        switch ending {
        case .some(.some(let (continuation, timer))):
            timer?.cancel()
            continuation.resume(with: result)
        case .some(.none):
            abandoned.add(-1)
        case .none:
            break
        }
    }

    /// The deadline passed or the caller was cancelled: the caller gets `error` now, and the
    /// operation, cancelled, counts as abandoned until it ends.
    func giveUp(throwing error: any Error) {
        let ending: (CheckedContinuation<T, any Error>, Task<Void, Never>?, DeadlineTimer.Token?)? = state.withLock { state in
            switch state {
            case .notStarted:
                state = .cancelledBeforeStart(error)
                return nil
            case .waiting(let continuation, let task, let timer):
                state = .abandoned
                abandoned.add(1)
                return (continuation, task, timer)
            case .cancelledBeforeStart, .finished, .abandoned:
                return nil
            }
        }
        guard let (continuation, task, timer) = ending else { return }
        timer?.cancel()
        task?.cancel()
        continuation.resume(throwing: error)
    }
}
