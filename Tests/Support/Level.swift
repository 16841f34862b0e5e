import Courier
import Foundation

/// A count that only grows, and tasks waiting until it reaches a value: what a test waits on
/// instead of sleeping (the bytes a client received, the requests a server got, a gate opened).
package final class Level: Sendable {
    private struct Waiter {
        let id: UInt64
        let target: Int
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var value = 0
        var nextID: UInt64 = 0
        var waiters: [Waiter] = []
    }

    private let state = Locked(State())

    package init() {}

    /// The current value.
    package var current: Int { state.withLock { $0.value } }

    /// Raises the value to `value` (never lowers it) and wakes the waiters it satisfies.
    package func raise(to value: Int) {
        update { $0 = max($0, value) }
    }

    /// Adds `amount` (not negative) to the value; returns the new value.
    @discardableResult
    package func add(_ amount: Int = 1) -> Int {
        update { $0 += max(0, amount) }
    }

    @discardableResult
    private func update(_ change: (inout Int) -> Void) -> Int {
        let (current, ready) = state.withLock { state -> (Int, [Waiter]) in
            change(&state.value)
            let current = state.value
            let ready = state.waiters.filter { $0.target <= current }
            state.waiters.removeAll { $0.target <= current }
            return (current, ready)
        }
        for waiter in ready { waiter.continuation.resume() }
        return current
    }

    /// Opens the level as a gate (its value becomes at least 1).
    package func open() { raise(to: 1) }

    /// Waits until the value reaches `target`, or the task is cancelled.
    package func wait(until target: Int = 1) async {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if state.value >= target || Task.isCancelled { return true }
                    state.waiters.append(Waiter(id: id, target: target, continuation: continuation))
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            waiter?.continuation.resume()
        }
    }

    /// Waits until the value reaches `target`; false if `limit` passes first. The limit is a
    /// backstop so a broken behaviour fails instead of hanging: far beyond any wait of a passing run.
    package func wait(until target: Int = 1, within limit: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.wait(until: target)
                return self.current >= target
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first || current >= target
        }
    }
}
