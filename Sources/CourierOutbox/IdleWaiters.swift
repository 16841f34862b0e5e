import Courier

/// The callers of ``Outbox/flush()`` waiting for the outbox to be idle; a caller whose task is
/// cancelled stops waiting at once.
///
/// A caller joins on the actor (``join()``), then waits off it: an end that comes in between is
/// kept for it, so no wake-up is lost.
final class IdleWaiters: Sendable {
    private enum Waiter {
        case joined
        case waiting(CheckedContinuation<Void, Never>)
        case ended
    }

    private struct State {
        var waiters: [Int: Waiter] = [:]
        var nextID = 0
    }

    private let state = Locked(State())

    /// Counts a caller in; the ticket to ``wait(_:)`` with.
    func join() -> Int {
        state.withLock { state in
            state.nextID += 1
            state.waiters[state.nextID] = .joined
            return state.nextID
        }
    }

    /// Waits until ``endAll()`` (since ``join()``) or the task is cancelled.
    func wait(_ id: Int) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Checked under the lock that `onCancel` takes too, so a cancellation can't slip between.
                let waits = state.withLock { state in
                    guard case .joined = state.waiters[id], !Task.isCancelled else {
                        state.waiters[id] = nil
                        return false
                    }
                    state.waiters[id] = .waiting(continuation)
                    return true
                }
                if !waits { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            if case .waiting(let continuation) = waiter { continuation.resume() }
        }
    }

    /// Ends every wait joined so far.
    func endAll() {
        let waiting = state.withLock { state in
            var waiting: [CheckedContinuation<Void, Never>] = []
            for (id, waiter) in state.waiters {
                switch waiter {
                case .joined: state.waiters[id] = .ended
                case .waiting(let continuation):
                    waiting.append(continuation)
                    state.waiters[id] = nil
                case .ended: break
                }
            }
            return waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}
