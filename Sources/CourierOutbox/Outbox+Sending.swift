import Courier
import Foundation
import HTTPTypes

extension Outbox {
    /// Starts sending what earlier runs left: call it once at app start (and after a user signs in,
    /// so their waiting items go at once).
    public func resume() {
        awaitingUser.removeAll()
        start()
    }

    /// Sends every item that can be sent now, without waiting out backoff, and returns once each
    /// group is sent, parked, backing off again or waiting for its user, or once the calling task
    /// is cancelled (the sending goes on).
    public func flush() async {
        for id in holds.keys { release(id) }
        awaitingUser.removeAll()
        start()
        guard !lanes.isEmpty else { return }
        await idleWaiters.wait(idleWaiters.join())
    }

    /// Stops sending (an item in flight is cancelled and sent again later) and ends every
    /// subscription to ``changes()``. Items stay on disk; ``resume()`` starts again.
    public func stop() async {
        isSending = false
        connectivity = nil
        for hold in holds.values { hold.cancel() }
        holds.removeAll()
        userCheck?.cancel()
        userCheck = nil
        let running = Array(lanes.values)
        for lane in running { lane.cancel() }
        for lane in running { await lane.value }
        subscribers.finish()
        resumeIdleWaiters()
    }

    /// Sends from now on, and starts a lane for each group with an item ready.
    func start() {
        if !isSending {
            isSending = true
            connectivity = ConnectivityWatch { [weak self] in Task { await self?.connectivityReturned() } }
        }
        schedule()
    }

    /// Starts a lane for each group whose oldest item is waiting, not backing off, and not held for
    /// another user; wakes ``flush()`` callers when no lane runs.
    func schedule() {
        guard isSending else { return resumeIdleWaiters() }
        let heads = (try? store.heads()) ?? []
        for head in heads
        where lanes[head.group] == nil && head.state == .waiting && holds[head.id] == nil && !awaitingUser.contains(head.group) {
            let group = head.group
            lanes[group] = Task { await self.runLane(group) }
        }
        if lanes.isEmpty { resumeIdleWaiters() }
    }

    /// Sends a group's items in order until it is empty, or its next item is parked, backing off or
    /// for another user.
    private func runLane(_ group: String) async {
        defer {
            lanes[group] = nil
            schedule()
        }
        while isSending, !Task.isCancelled {
            guard let head = try? store.head(of: group), head.item.state == .waiting, holds[head.item.id] == nil else { return }
            guard await client.isSignedIn(head.identity) else {
                awaitUser(group)
                return
            }
            guard await send(head) else { return }
        }
    }

    /// Sends one item and records what came of it; whether its group may go on.
    private func send(_ record: OutboxStore.Record) async -> Bool {
        subscribers.send(.sending(record.item))
        let body: RequestBody?
        let contentType = record.request.headers.first { $0.first?.lowercased() == "content-type" }?.last ?? "application/octet-stream"
        if let name = record.bodyFile {
            body = .file(files.url(of: name), contentType: contentType)
        } else {
            body = record.body.map { .data($0, contentType: contentType) }
        }
        do {
            let response = try await client.send(record.request, body: body, identity: record.identity)
            await beforeRemoval?(record.item)
            let removed: (item: OutboxItem, bodyFile: String?)?
            do {
                // Synced when a body file goes with it: a removal a power cut undid would come
                // back without its body.
                removed = try store.remove(record.item.id, synced: record.bodyFile != nil)
            } catch {
                // The answer is known but the item can't be removed (a full disk): it is sent again
                // later with its key, and the server answers as the first time.
                hold(record.item.id, for: delay(afterAttempt: record.item.attempts + 1, error: nil))
                return false
            }
            if let name = removed?.bodyFile { files.delete(name) }
            subscribers.send(.sent(record.item, OutboxDelivery(response: response, decoder: client.configuration.decoder)))
            return true
        } catch {
            return handle(error, of: record)
        }
    }

    /// Records a failed attempt: a passing one backs off, a refusal parks the item, a call for a
    /// user no longer signed in waits for them; whether the group may go on (never).
    private func handle(_ error: CourierError, of record: OutboxStore.Record) -> Bool {
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
    private func hold(_ id: OutboxItem.ID, for delay: Duration) {
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
    private func awaitUser(_ group: String) {
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
    private func connectivityReturned() {
        for id in holds.keys { release(id) }
        schedule()
    }

    private func resumeIdleWaiters() {
        idleWaiters.endAll()
    }

    /// A failure as kept on disk, without secrets (the error's detail is already redacted).
    static func failure(_ error: CourierError) -> OutboxItem.Failure {
        OutboxItem.Failure(kind: error.kind.identifier, status: error.status?.code, serverMessage: error.serverMessage, detail: error.detail)
    }
}

/// What a failed attempt means for its item.
enum Disposition: Equatable {
    /// The outbox is stopping: the item stays as it was.
    case stop
    /// Another user (or nobody) is signed in, or the user's session expired: wait for them.
    case awaitUser
    /// Worth sending again after a while.
    case passing
    /// Refused for good: park it.
    case refused

    init(of error: CourierError, stopping: Bool) {
        if stopping { self = .stop; return }
        switch error.kind {
        case .cancelled, .sessionExpired: self = .awaitUser
        case .noConnection, .timedOut, .connectionLost, .transport: self = .passing
        default:
            // 408 and 429 ask for later; 409 is a key still in flight (the Idempotency-Key draft);
            // 425 asks for a retry; 5xx is the server's own trouble.
            guard let status = error.status?.code else { self = .refused; return }
            self = [408, 409, 425, 429].contains(status) || status >= 500 ? .passing : .refused
        }
    }
}
