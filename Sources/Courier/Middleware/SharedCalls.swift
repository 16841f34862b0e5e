import Foundation
import HTTPTypes
import OpenAPIRuntime

/// The identical GETs in flight, each shared by the callers that asked for it (see ``CoalescingMiddleware``).
final class SharedCalls: Sendable {
    private let calls = Locked<[CoalescingMiddleware.Key: SharedCall]>([:])

    /// The call in flight for `key`, joined, or a new one that the caller leads.
    func enter(_ key: CoalescingMiddleware.Key) -> (call: SharedCall, isLeader: Bool) {
        calls.withLock { calls in
            if let existing = calls[key], existing.join() {
                return (existing, false)
            }
            // None, or one closed to newcomers (it has its outcome, or its leader kept its answer).
            let call = SharedCall()
            calls[key] = call
            return (call, true)
        }
    }

    /// Forgets `call` (it has finished): later callers start a new one.
    func remove(_ key: CoalescingMiddleware.Key, _ call: SharedCall) {
        calls.withLock { if $0[key] === call { $0[key] = nil } }
    }
}

/// What the leader's call gives the callers that joined it.
enum SharedOutcome: Sendable {
    /// The response, its body read within the limit, for every caller.
    case response(SharedResponse)
    /// Not for sharing (a body too large or of unknown size, credentials added further down a
    /// chain that can't tell users apart): each caller that joined sends its own request.
    case sendYourOwn
    /// The leader was cancelled and its request with it: the callers waiting share a new one.
    case askAgain
}

/// A response read whole, with what the call's report says about it.
struct SharedResponse: Sendable {
    var head: HTTPResponse
    var body: Data
    var source: ResponseSource
    var attempts: Int
}

/// One call in flight, run by its leader, and the callers waiting for it.
final class SharedCall: Sendable {
    private struct State {
        var waiters: [Int: CheckedContinuation<SharedOutcome, any Error>] = [:]
        /// Callers that joined and have not left, the leader not counted.
        var followers = 0
        /// Set once nobody may join any more: the outcome is given, or the leader keeps its answer.
        var isClosed = false
        var nextWaiter = 0
        var outcome: Result<SharedOutcome, any Error>?
    }

    private let state = Locked(State())

    /// Counts a caller in, before it waits; false when the call is closed to newcomers.
    func join() -> Bool {
        state.withLock { state in
            guard !state.isClosed else { return false }
            state.followers += 1
            return true
        }
    }

    /// Closes the call when nobody has joined it, so that its leader keeps its answer unread;
    /// false when someone waits for it.
    func closeIfAlone() -> Bool {
        state.withLock { state in
            guard state.followers == 0 else { return false }
            state.isClosed = true
            return true
        }
    }

    /// Hands the outcome to every caller waiting for it (and to those that come to wait later).
    func finish(_ outcome: Result<SharedOutcome, any Error>) {
        let waiters = state.withLock { state in
            state.outcome = outcome
            state.isClosed = true
            defer { state.waiters = [:] }
            return state.waiters
        }
        for continuation in waiters.values { continuation.resume(with: outcome) }
    }

    /// The outcome, waiting for it; a cancelled caller stops waiting at once.
    func outcome() async throws -> SharedOutcome {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // Checking cancellation under the lock closes the gap with `leave`, which takes the same lock.
                let immediate = state.withLock { state -> Result<SharedOutcome, any Error>? in
                    if let outcome = state.outcome { return outcome }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            leave(waiter: id)
        }
    }

    /// Removes a cancelled caller and its continuation, if it waits.
    private func leave(waiter id: Int) {
        let continuation = state.withLock { state in
            let continuation = state.waiters.removeValue(forKey: id)
            if state.outcome == nil { state.followers -= 1 }
            return continuation
        }
        continuation?.resume(throwing: CancellationError())
    }
}
