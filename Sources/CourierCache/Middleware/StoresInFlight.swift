import Courier

/// Responses the cache stores after the caller has its answer, by key: each is written by a task
/// of its own, after the key's previous one; a lookup of a key waits for that key's writes, and a
/// removal or a count waits for them all. So a call never pays for the write, and every later
/// read sees it as if it had been written before the call returned.
final class StoresInFlight: Sendable {
    private struct Write {
        var id: Int
        var task: Task<Void, Never>
    }

    private struct State {
        var writes: [CacheKey: Write] = [:]
        var lastID = 0
    }

    private let state = Locked(State())

    /// Runs `work` for `key` after the writes of `key` started before it.
    func start(_ key: CacheKey, _ work: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            state.lastID += 1
            let id = state.lastID
            let previous = state.writes[key]?.task
            let task = Task {
                await previous?.value
                await work()
                self.finish(key, id)
            }
            state.writes[key] = Write(id: id, task: task)
        }
    }

    private func finish(_ key: CacheKey, _ id: Int) {
        state.withLock { state in
            if state.writes[key]?.id == id { state.writes[key] = nil }
        }
    }

    /// Returns once the writes of `key` started so far are done.
    func wait(for key: CacheKey) async {
        await state.withLock { $0.writes[key]?.task }?.value
    }

    /// Returns once every write started so far is done.
    func waitForAll() async {
        for task in state.withLock({ $0.writes.values.map(\.task) }) { await task.value }
    }
}
