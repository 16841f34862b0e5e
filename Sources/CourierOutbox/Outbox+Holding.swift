import Courier
import Foundation

/// What holds an item back after an attempt: backoff after a passing failure, a park after a
/// refusal, a wait for its user; and what ends each (its timer, a release, the network's return).
extension Outbox {
    /// Records a failed attempt: a passing one backs off, a refusal parks the item, a call for a
    /// user no longer signed in waits for them; whether the group may go on (never).
    func handle(_ error: CourierError, of record: OutboxStore.Record) -> Bool {
        let item = record.item
        switch Disposition(of: error, stopping: Task.isCancelled || !isSending) {
        case .stop:
            return false
        case .awaitUser:
            awaitUser(item.group)
            return false
        case .passing:
            let updated = (try? store.recordFailure(item.id, Self.failure(error), park: false)) ?? item
            let delay = delay(afterAttempt: max(updated.attempts, item.attempts + 1), error: error)
            hold(item.id, for: delay)
            subscribers.send(.willRetry(updated, error, retryAfter: delay))
            return false
        case .refused:
            guard let updated = try? store.recordFailure(item.id, Self.failure(error), park: true) else {
                // Not parked on disk: held back instead, so the group doesn't send it again at once.
                hold(item.id, for: delay(afterAttempt: item.attempts + 1, error: nil))
                return false
            }
            subscribers.send(.parked(updated, error))
            return false
        }
    }

    /// The wait after `attempt` failed: doubling from the initial delay up to the maximum, between
    /// half and all of it (jitter, so a fleet of devices back online doesn't come at once), and no
    /// less than the server's `Retry-After`.
    func delay(afterAttempt attempt: Int, error: CourierError?) -> Duration {
        let exponent = Double(min(max(attempt - 1, 0), 62))
        let bound = min(backoff.initialDelay.inSeconds * pow(2, exponent), backoff.maximumDelay.inSeconds)
        var wait = Duration.seconds(bound * (0.5 + 0.5 * min(max(random(), 0), 1)))
        if let field = error?.responseHeaders?[.retryAfter], let asked = RetryPolicy.retryAfterDelay(field, now: Date()) {
            wait = max(wait, min(asked, backoff.maximumRetryAfter))
        }
        return wait
    }

    /// Holds an item back for `delay`, then schedules again.
    func hold(_ id: OutboxItem.ID, for delay: Duration) {
        holds[id]?.cancel()
        let clock = clock
        holds[id] = Task {
            do { try await clock.sleep(for: delay) } catch { return }
            self.holdEnded(id)
        }
    }

    /// Runs in the hold's own task: one released meanwhile (and perhaps replaced) is cancelled, and
    /// ends nothing.
    private func holdEnded(_ id: OutboxItem.ID) {
        guard !Task.isCancelled else { return }
        holds[id] = nil
        schedule()
    }

    /// Holds a group back until its user may be signed in again: until ``resume()``, ``flush()``,
    /// or the next check of who is signed in (every ``userCheckInterval``).
    func awaitUser(_ group: String) {
        awaitingUser.insert(group)
        guard userCheck == nil else { return }
        let clock = clock
        userCheck = Task {
            do { try await clock.sleep(for: Self.userCheckInterval) } catch { return }
            self.userCheckEnded()
        }
    }

    private func userCheckEnded() {
        guard !Task.isCancelled else { return }
        userCheck = nil
        awaitingUser.removeAll()
        schedule()
    }

    /// Ends an item's backoff at once.
    func release(_ id: OutboxItem.ID) {
        holds.removeValue(forKey: id)?.cancel()
    }

    /// The network is back (Apple platforms): items waiting after a failed connection go now.
    func connectivityReturned() {
        for id in holds.keys { release(id) }
        schedule()
    }

    /// A failure as kept on disk, without secrets (the error's detail is already redacted).
    static func failure(_ error: CourierError) -> OutboxItem.Failure {
        OutboxItem.Failure(kind: error.kind.identifier, status: error.status?.code, serverMessage: error.serverMessage, detail: error.detail)
    }
}
