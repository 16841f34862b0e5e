/// The tasks a client's middlewares run after their caller has its answer (the cache's background
/// revalidation), so they can be awaited or cancelled.
///
/// Shared by copies of a client; when the last copy is gone, whatever still runs is cancelled.
package final class BackgroundWork: Sendable {
    private struct State {
        var nextID = 0
        var tasks: [Int: Task<Void, Never>] = [:]
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    /// Starts `work` in a task of its own (detached: it must not inherit the caller's cancellation).
    package func start(_ work: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            state.nextID += 1
            let id = state.nextID
            state.tasks[id] = Task.detached { [weak self] in
                await work()
                self?.finish(id)
            }
        }
    }

    private func finish(_ id: Int) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.tasks[id] = nil
            guard state.tasks.isEmpty else { return [] }
            defer { state.idleWaiters = [] }
            return state.idleWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns when no background task is running.
    package func waitUntilIdle() async {
        await withCheckedContinuation { continuation in
            let idle = state.withLock { state -> Bool in
                if state.tasks.isEmpty { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// Cancels every running background task.
    package func cancelAll() {
        for task in state.withLock({ Array($0.tasks.values) }) { task.cancel() }
    }

    deinit { cancelAll() }
}
