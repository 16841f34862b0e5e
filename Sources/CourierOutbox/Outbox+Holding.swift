import Courier
import Foundation

/// What holds an item back after an attempt: backoff after a transient failure, a park after a
/// refusal or past the give-up bound, a wait for its user; and what ends each (its timer, a
/// release, the network's return for a failed connection).
extension Outbox {
    /// An item backing off: its timer, and whether the network's return ends it early (a failed
    /// connection does; a server's `5xx` or `Retry-After` waits its time).
    struct Hold {
        var task: Task<Void, Never>
        var endsWhenOnline: Bool
    }

    /// Records a failed attempt: a transient one backs off (or parks the item past the give-up
    /// bound), a refusal parks the item, a call for a user no longer signed in waits for them;
    /// whether the group may go on (never).
    func handle(_ error: CourierError, of record: OutboxStore.Record) async -> Bool {
        let item = record.item
        let store = store
        switch Disposition(of: error, stopping: Task.isCancelled || !isSending) {
        case .stop:
            return false
        case .awaitUser:
            awaitUser(item.group)
            return false
        case .transient:
            let counts = error.kind != .noConnection
            if let reason = giveUpReason(record, counting: counts) {
                var final = error
                final.detail = "Gave up: \(reason). The last failure: \(error.detail)"
                return await park(record, final, Self.failure(final, reason: .gaveUp), counts: counts)
            }
            let failure = Self.failure(error, reason: .transient)
            let updated = try? await observed { try await store.recordFailure(item.id, failure, park: false, counts: counts) }
            let delay = delay(afterAttempt: max(updated?.sends ?? 0, item.sends + 1), error: error)
            hold(item.id, for: delay, endsWhenOnline: error.status == nil)
            subscribers.send(.willRetry(updated ?? item, error, retryAfter: delay))
            return false
        case .refused:
            return await park(record, error, Self.failure(error, reason: .refused), counts: true)
        }
    }

    /// Why the outbox gives up on an item after one more transient failure, or nil.
    private func giveUpReason(_ record: OutboxStore.Record, counting counts: Bool) -> String? {
        let spent = record.spentAttempts + (counts ? 1 : 0)
        if let maximum = backoff.maximumTransientFailures, spent >= maximum {
            return "\(spent) transient failures, the most the outbox's Backoff.maximumTransientFailures allows"
        }
        let age = Date().timeIntervalSince(record.budgetStart)
        if let maximum = backoff.maximumAge, age >= maximum.inSeconds {
            return "still failing \(Int(age)) s after it was enqueued or retried, past the outbox's Backoff.maximumAge"
        }
        return nil
    }

    /// Parks an item after a failed attempt and tells the app.
    private func park(_ record: OutboxStore.Record, _ error: CourierError, _ failure: OutboxItem.Failure, counts: Bool) async -> Bool {
        let (store, id) = (store, record.item.id)
        await parking(id, error, heldAfterAttempt: record.item.sends + 1) {
            try await store.recordFailure(id, failure, park: true, counts: counts)
        }
        return false
    }

    /// Parks an item whose row can't be read, without sending it; its bytes stay as they are.
    func parkUnreadable(_ record: OutboxStore.Record) async {
        // An unreadable row lists as parked, with the failure that says why.
        guard let failure = record.item.lastFailure else { return }
        let (store, id) = (store, record.item.id)
        await parking(id, CourierError(.invalidRequest, detail: failure.detail), heldAfterAttempt: 1) {
            try await store.park(id, failure)
        }
    }

    /// Parks an item on disk with `write` and tells the app; when the disk refuses, holds the item
    /// back instead, so its group doesn't send it again at once.
    private func parking(
        _ id: OutboxItem.ID, _ error: CourierError, heldAfterAttempt attempt: Int, _ write: () async throws -> OutboxItem?
    ) async {
        guard let updated = try? await observed(write) else {
            hold(id, for: delay(afterAttempt: attempt, error: nil), endsWhenOnline: false)
            return
        }
        subscribers.send(.parked(updated, error))
    }

    /// The wait after `attempt` failed: doubling from the initial delay up to the maximum, between
    /// half and all of it (jitter, so a fleet of devices back online doesn't come at once), and no
    /// less than the server's `Retry-After`.
    func delay(afterAttempt attempt: Int, error: CourierError?) -> Duration {
        let asked = error?.responseHeaders?[.retryAfter].flatMap { RetryPolicy.retryAfterDelay($0, now: Date()) }
        return ExponentialBackoff(initial: backoff.initialDelay, maximum: backoff.maximumDelay, jitter: .upperHalf)
            .delay(afterAttempt: attempt, atLeast: asked.map { min($0, backoff.maximumRetryAfter) }, random: random)
    }

    /// Holds an item back for `delay`, then schedules again.
    func hold(_ id: OutboxItem.ID, for delay: Duration, endsWhenOnline: Bool) {
        holds[id]?.task.cancel()
        let clock = clock
        let task = Task {
            do { try await clock.sleep(for: delay) } catch { return }
            await self.holdEnded(id)
        }
        holds[id] = Hold(task: task, endsWhenOnline: endsWhenOnline)
    }

    /// Runs in the hold's own task: one released meanwhile (and perhaps replaced) is cancelled, and
    /// ends nothing.
    private func holdEnded(_ id: OutboxItem.ID) async {
        guard !Task.isCancelled else { return }
        holds[id] = nil
        await scheduled()
    }

    /// Looks again at what to send after a storage failure, after a wait that doubles with each
    /// failure in a row (as an item's backoff).
    func retryStorage() {
        guard storageRetry == nil else { return }
        let clock = clock
        let wait = delay(afterAttempt: storageFailures, error: nil)
        storageRetry = Task {
            do { try await clock.sleep(for: wait) } catch { return }
            await self.storageRetryEnded()
        }
    }

    private func storageRetryEnded() async {
        guard !Task.isCancelled else { return }
        storageRetry = nil
        await scheduled()
    }

    /// Holds a group back until its user may be signed in again: until ``resume()``, ``flush()``,
    /// or the next check of who is signed in (every ``userCheckInterval``).
    func awaitUser(_ group: String) {
        awaitingUser.insert(group)
        guard userCheck == nil else { return }
        let clock = clock
        userCheck = Task {
            do { try await clock.sleep(for: Self.userCheckInterval) } catch { return }
            await self.userCheckEnded()
        }
    }

    private func userCheckEnded() async {
        guard !Task.isCancelled else { return }
        userCheck = nil
        awaitingUser.removeAll()
        await scheduled()
    }

    /// Ends an item's backoff at once.
    func release(_ id: OutboxItem.ID) {
        holds.removeValue(forKey: id)?.task.cancel()
    }

    /// The network is back (Apple platforms): items waiting after a failed connection go now;
    /// those waiting out a server's answer (`5xx`, `Retry-After`) wait their time.
    package func connectivityReturned() async {
        for (id, hold) in holds where hold.endsWhenOnline { release(id) }
        await scheduled()
    }

    /// A failure as kept on disk, without secrets (the error's detail is already redacted).
    static func failure(_ error: CourierError, reason: OutboxItem.Failure.Reason) -> OutboxItem.Failure {
        OutboxItem.Failure(
            kind: error.kind.identifier, reason: reason, status: error.status?.code, serverMessage: error.serverMessage, detail: error.detail)
    }
}
