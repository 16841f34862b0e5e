import Foundation
import HTTPTypes
import OpenAPIRuntime

/// The identical GETs in flight, each shared by the callers that asked for it (see ``CoalescingMiddleware``).
final class SharedCalls: Sendable {
    private let calls = Locked<[CoalescingMiddleware.Key: SharedCall]>([:])

    /// The call in flight for `key`, joined, or a new one that the caller leads.
    func enter(_ key: CoalescingMiddleware.Key) -> (call: SharedCall, isLeader: Bool) {
        calls.withLock { calls in
            // Joining under the table's lock: a caller that has the call but is not waiting yet
            // still counts, so the others leaving can't cancel it from under it.
            if let existing = calls[key] {
                existing.join()
                return (existing, false)
            }
            let call = SharedCall()
            call.join()
            calls[key] = call
            return (call, true)
        }
    }

    /// Forgets `call` (it has finished, or nobody waits for it): later callers start a new one.
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
}

/// A response read whole, with what the call's report says about it.
struct SharedResponse: Sendable {
    var head: HTTPResponse
    var body: Data
    var source: ResponseSource
    var attempts: Int
}

/// One call in flight and the callers waiting for it.
final class SharedCall: Sendable {
    private struct State {
        var waiters: [Int: CheckedContinuation<SharedOutcome, any Error>] = [:]
        /// Callers that joined and have not left, the leader included.
        var members = 0
        var nextWaiter = 0
        var outcome: Result<SharedOutcome, any Error>?
        var cancel: (@Sendable () -> Void)?
    }

    private let state = Locked(State())

    /// Counts a caller in, before it waits.
    func join() {
        state.withLock { $0.members += 1 }
    }

    /// Records how to cancel the call, for the last caller to leave.
    func started(cancel: @escaping @Sendable () -> Void) {
        state.withLock { $0.cancel = cancel }
    }

    /// Hands the outcome to every caller waiting for it (and to those that come to wait later).
    func finish(_ outcome: Result<SharedOutcome, any Error>) {
        let waiters = state.withLock { state in
            state.outcome = outcome
            defer { state.waiters = [:] }
            return state.waiters
        }
        for continuation in waiters.values { continuation.resume(with: outcome) }
    }

    /// The outcome, waiting for it; a cancelled caller stops waiting at once (`orphaned` runs when
    /// it was the last caller in, and the call was cancelled).
    func outcome(orphaned: @escaping @Sendable () -> Void) async throws -> SharedOutcome {
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
            if leave(waiter: id) { orphaned() }
        }
    }

    /// Removes a cancelled caller (and its continuation, when it waits); cancels the call when it
    /// was the last one in. Returns whether it did.
    @discardableResult
    func leave(waiter id: Int? = nil) -> Bool {
        let (continuation, cancel) = state.withLock { state in
            let continuation = id.flatMap { state.waiters.removeValue(forKey: $0) }
            state.members -= 1
            let orphaned = state.members == 0 && state.outcome == nil
            return (continuation, orphaned ? state.cancel : nil)
        }
        continuation?.resume(throwing: CancellationError())
        cancel?()
        return cancel != nil
    }
}
