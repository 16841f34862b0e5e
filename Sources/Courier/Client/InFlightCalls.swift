import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Shares one network exchange between identical concurrent GETs.
///
/// The first caller starts the exchange in its own task; later callers with the same key wait for
/// its outcome. Each caller may cancel alone: it stops waiting at once, and the shared exchange is
/// cancelled only when no caller is left.
final class InFlightCalls: Sendable {
    /// What makes two requests identical: the whole request head plus how the call treats caches and credentials.
    struct Key: Hashable, Sendable {
        let head: HTTPRequest
        let policy: CachePolicy
        let identity: CallIdentity
        let requiresAuthentication: Bool
        let timeout: Duration
        /// Hashed once: the table hashes a key to insert it and again to remove it, and a request
        /// head with its header fields is the costliest part of a cache hit's bookkeeping.
        private let hash: Int

        init(head: HTTPRequest, policy: CachePolicy, identity: CallIdentity, requiresAuthentication: Bool, timeout: Duration) {
            self.head = head
            self.policy = policy
            self.identity = identity
            self.requiresAuthentication = requiresAuthentication
            self.timeout = timeout
            var hasher = Hasher()
            hasher.combine(head)
            hasher.combine(policy)
            hasher.combine(identity)
            hasher.combine(requiresAuthentication)
            hasher.combine(timeout)
            hash = hasher.finalize()
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }

        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.hash == rhs.hash && lhs.head == rhs.head && lhs.policy == rhs.policy && lhs.identity == rhs.identity
                && lhs.requiresAuthentication == rhs.requiresAuthentication && lhs.timeout == rhs.timeout
        }
    }

    /// The result of one exchange, shared by every caller.
    struct Outcome: Sendable {
        var head: HTTPResponse
        var body: Data
        var source: ResponseSource
        var attempts: Int
        /// A transfer's body size (its bytes are in a file, not in ``body``).
        var bodySize: Int64?
        /// A streamed call's body, handed to the caller unread.
        var stream: HTTPBody?
    }

    private let calls = Locked<[Key: SharedCall]>([:])

    /// Runs `operation` once for all concurrent callers with the same key; a caller that joins is
    /// counted in ``MetricName/coalescedRequests`` under `operationName`.
    func run(_ key: Key, telemetry: Telemetry, operationName: String, operation: @escaping @Sendable () async throws -> Outcome) async throws -> Outcome {
        let (call, isLeader) = calls.withLock { calls -> (SharedCall, Bool) in
            // Joining under the table's lock: a caller that has the call but is not waiting yet
            // still counts, so the others leaving can't cancel the exchange from under it.
            if let existing = calls[key] {
                existing.join()
                return (existing, false)
            }
            let call = SharedCall()
            call.join()
            calls[key] = call
            return (call, true)
        }
        if isLeader {
            // The shared task inherits the leader's task-local request context.
            call.start { [calls] in
                let result: Result<Outcome, any Error>
                do { result = .success(try await operation()) } catch { result = .failure(error) }
                calls.withLock { if $0[key] === call { $0[key] = nil } }
                return result
            }
        }
        // An exchange that finished while starting (a fresh cache hit) needs no waiting.
        if isLeader, let result = call.result { return try result.get() }
        if !isLeader { telemetry.count(MetricName.coalescedRequests, [("courier.operation", operationName)]) }
        let waiter = call.newWaiterID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                call.wait(waiter, continuation)
            }
        } onCancel: {
            if call.leave(waiter) {
                calls.withLock { if $0[key] === call { $0[key] = nil } }
            }
        }
    }
}

/// One exchange in flight and the callers waiting for it.
private final class SharedCall: Sendable {
    private struct State {
        var waiters: [Int: CheckedContinuation<InFlightCalls.Outcome, any Error>] = [:]
        /// Callers that joined and have not left, waiting or about to wait.
        var members = 0
        var nextWaiter = 0
        var result: Result<InFlightCalls.Outcome, any Error>?
        var task: Task<Void, any Error>?
    }

    private let state = Locked(State())

    /// Starts the exchange on the leader's thread: one that needs no network (a fresh cache hit)
    /// finishes before the leader waits, without a hop to another thread.
    func start(_ work: @escaping @Sendable () async -> Result<InFlightCalls.Outcome, any Error>) {
        let task = Task<Void, any Error>.startingImmediately { [self] in
            let result = await work()
            let waiters = state.withLock { state in
                state.result = result
                defer { state.waiters = [:] }
                return state.waiters
            }
            for continuation in waiters.values { continuation.resume(with: result) }
        }
        state.withLock { $0.task = task }
    }

    /// The outcome, once the exchange has finished.
    var result: Result<InFlightCalls.Outcome, any Error>? {
        state.withLock { $0.result }
    }

    /// Counts a caller in, before it waits.
    func join() {
        state.withLock { $0.members += 1 }
    }

    func newWaiterID() -> Int {
        state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
    }

    /// Registers a waiter, or answers at once when the result is in or the caller is already cancelled.
    func wait(_ id: Int, _ continuation: CheckedContinuation<InFlightCalls.Outcome, any Error>) {
        // Checking cancellation under the lock closes the gap with `leave`, which takes the same lock.
        let immediate = state.withLock { state -> Result<InFlightCalls.Outcome, any Error>? in
            if let result = state.result { return result }
            if Task.isCancelled { return .failure(CancellationError()) }
            state.waiters[id] = continuation
            return nil
        }
        if let immediate { continuation.resume(with: immediate) }
    }

    /// Removes a cancelled caller; cancels the exchange when it was the last one in. Returns true in that case.
    func leave(_ id: Int) -> Bool {
        let (continuation, orphanedTask) = state.withLock { state in
            let continuation = state.waiters.removeValue(forKey: id)
            state.members -= 1
            let orphaned = state.members == 0 && state.result == nil
            return (continuation, orphaned ? state.task : nil)
        }
        continuation?.resume(throwing: CancellationError())
        orphanedTask?.cancel()
        return orphanedTask != nil
    }
}
