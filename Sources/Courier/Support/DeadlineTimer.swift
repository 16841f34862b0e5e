import Foundation

/// One thread that runs actions at deadlines: the timer behind every request timeout.
///
/// Scheduling and cancelling take a lock and touch a heap; no system call unless the new deadline
/// is the earliest. A dispatch timer per request costs tens of microseconds of CPU and a sleeping
/// task keeps its memory until its deadline on Linux; requests almost always finish long before
/// their timeout, so the common path here is schedule, cancel, nothing else.
// @unchecked: `state` is only read or written while `condition` (a lock) is held; the timer
// thread waits on the same condition, so a new earliest deadline can't slip between its check and
// its wait.
package final class DeadlineTimer: @unchecked Sendable {
    /// The process-wide timer.
    package static let shared = DeadlineTimer()

    /// A scheduled action; cancel it when the work finishes in time.
    package struct Token: Sendable {
        fileprivate let id: UInt64
        fileprivate let timer: DeadlineTimer

        /// Cancels the action if it has not run yet.
        package func cancel() { timer.cancel(id) }
    }

    private struct State {
        var actions: [UInt64: @Sendable () -> Void] = [:]
        var heap = DeadlineHeap()
        var nextID: UInt64 = 0
        var started = false
    }

    private var state = State()
    private let condition = NSCondition()

    private init() {}

    /// Runs `action` on the timer thread after `delay`, unless cancelled first.
    package func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> Token {
        let deadline = ContinuousClock.now + delay
        condition.lock()
        defer { condition.unlock() }
        state.nextID += 1
        let id = state.nextID
        state.actions[id] = action
        let isEarliest = state.heap.peek().map { deadline < $0.deadline } ?? true
        state.heap.push(DeadlineHeap.Entry(deadline: deadline, id: id))
        if !state.started {
            state.started = true
            let thread = Thread { [self] in run() }
            thread.name = "courier.deadline-timer"
            thread.start()
        }
        if isEarliest { condition.signal() }
        return Token(id: id, timer: self)
    }

    private func cancel(_ id: UInt64) {
        condition.lock()
        defer { condition.unlock() }
        state.actions[id] = nil
        // Cancelled entries stay in the heap until they surface; rebuild when they dominate.
        if state.heap.count > 1024, state.heap.count > 4 * state.actions.count {
            let actions = state.actions
            state.heap.keep { actions[$0.id] != nil }
        }
    }

    private func run() {
        condition.lock()
        while true {
            let now = ContinuousClock.now
            var due: [@Sendable () -> Void] = []
            while let top = state.heap.peek() {
                guard let action = state.actions[top.id] else {
                    _ = state.heap.pop()
                    continue
                }
                guard top.deadline <= now else { break }
                _ = state.heap.pop()
                state.actions[top.id] = nil
                due.append(action)
            }
            if !due.isEmpty {
                condition.unlock()
                for action in due { action() }
                condition.lock()
                continue
            }
            if let next = state.heap.peek()?.deadline {
                _ = condition.wait(until: Date(timeIntervalSinceNow: now.duration(to: next).inSeconds))
            } else {
                condition.wait()
            }
        }
    }
}

/// A binary min-heap of deadlines.
struct DeadlineHeap {
    struct Entry {
        var deadline: ContinuousClock.Instant
        var id: UInt64
    }

    private var entries: [Entry] = []

    var count: Int { entries.count }

    func peek() -> Entry? { entries.first }

    mutating func push(_ entry: Entry) {
        entries.append(entry)
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].deadline < entries[parent].deadline else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Entry? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let top = entries.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < entries.count, entries[left].deadline < entries[smallest].deadline { smallest = left }
            if right < entries.count, entries[right].deadline < entries[smallest].deadline { smallest = right }
            guard smallest != parent else { break }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }

    /// Keeps only the entries `isLive` accepts, restoring the heap order.
    mutating func keep(where isLive: (Entry) -> Bool) {
        let live = entries.filter(isLive)
        entries = []
        for entry in live { push(entry) }
    }
}
