import Courier
import Foundation
import HTTPTypes
import Logging

extension Outbox {
    /// Starts sending what earlier runs left: call it once at app start (and after a user signs in,
    /// so their waiting items go at once).
    public func resume() async {
        await stopped()
        awaitingUser.removeAll()
        start()
    }

    /// Sends every item that can be sent now, without waiting out backoff, and returns once each
    /// group is sent, parked, backing off again or waiting for its user, or once the calling task
    /// is cancelled (the sending goes on).
    public func flush() async {
        await stopped()
        for id in holds.keys { release(id) }
        awaitingUser.removeAll()
        start()
        await scheduled()
        guard !lanes.isEmpty else { return }
        await idleWaiters.wait(idleWaiters.join())
    }

    /// Sends from now on, and starts a lane for each group with an item ready.
    func start() {
        // Nothing restarts sending underneath a stop: a caller waits for it first.
        guard stopWaiters == nil else { return }
        if !isSending {
            do {
                try lock.acquire()
            } catch {
                // Another outbox took the folder after this one stopped: it sends the items.
                logger.error("The outbox can't send: \(error)")
                subscribers.send(.storageFailed(error))
                return resumeIdleWaiters()
            }
            isSending = true
            hasStopped = false
            connectivity = ConnectivityWatch { [weak self] in Task { await self?.connectivityReturned() } }
        }
        Task { await self.scheduled() }
    }

    /// Starts a lane for each group whose oldest item is waiting, not backing off, and not held for
    /// another user; parks an unreadable head; wakes ``flush()`` callers when no lane runs. A
    /// storage that can't say what to send is tried again with backoff.
    func scheduled() async {
        guard isSending else { return resumeIdleWaiters() }
        let store = store
        let heads = await holdingFolder { try? await observed { try await store.heads() } }
        // A stop that began meanwhile starts nothing.
        guard isSending else { return resumeIdleWaiters() }
        guard let heads else {
            retryStorage()
            if lanes.isEmpty { resumeIdleWaiters() }
            return
        }
        for head in heads where head.needsParking && !head.isInAGroup && holds[head.item.id] == nil {
            // A row whose group can't be read belongs to no lane: parked here, alone.
            await parkUnreadable(head)
        }
        for head in heads
        where head.isInAGroup && lanes[head.item.group] == nil && holds[head.item.id] == nil && !awaitingUser.contains(head.item.group)
            && (head.item.state == .waiting || head.needsParking)
        {
            let group = head.item.group
            lanes[group] = Task { await self.runLane(group) }
        }
        if lanes.isEmpty { resumeIdleWaiters() }
    }

    /// Sends a group's items in order until it is empty, or its next item is parked, backing off or
    /// for another user.
    private func runLane(_ group: String) async {
        defer {
            lanes[group] = nil
            Task { await self.scheduled() }
        }
        while isSending, !Task.isCancelled {
            let found: OutboxStore.Record?
            do { found = try await observed { try await store.head(of: group) } } catch {
                retryStorage()
                return
            }
            guard let head = found, holds[head.item.id] == nil else { return }
            if head.needsParking { return await parkUnreadable(head) }
            guard let request = head.request, head.item.state == .waiting else { return }
            guard await client.isSignedIn(head.identity) else {
                awaitUser(group)
                return
            }
            guard await send(head, request) else { return }
        }
    }

    /// Sends one item and records what came of it; whether its group may go on.
    private func send(_ record: OutboxStore.Record, _ request: KeptRequest) async -> Bool {
        subscribers.send(.sending(record.item))
        let body: RequestBody?
        let contentType = request.contentType ?? "application/octet-stream"
        if let name = record.bodyFile {
            body = .file(files.url(of: name), contentType: contentType)
        } else {
            body = record.body.map { .data($0, contentType: contentType) }
        }
        do {
            let response = try await client.sendDeferred(request.deferred, body: body, for: record.identity)
            await beforeRemoval?(record.item)
            let removed: (item: OutboxItem, bodyFile: String?)?
            do {
                // Synced when a body file goes with it: a removal a power cut undid would come
                // back without its body. In a task of its own: the answer came, so a stop that
                // cancels the lane now must not leave the item to be sent again.
                let (store, id, synced) = (store, record.item.id, record.bodyFile != nil)
                removed = try await observed { try await Task { try await store.remove(id, synced: synced) }.value }
            } catch {
                // The answer is known but the item can't be removed (a full disk): it is sent again
                // later with its key, and the server answers as the first time.
                hold(record.item.id, for: delay(afterAttempt: record.item.sends + 1, error: nil), endsWhenOnline: false)
                return false
            }
            if let name = removed?.bodyFile { files.delete(name) }
            subscribers.send(.sent(record.item, OutboxDelivery(response: response, decoder: client.configuration.decoder)))
            return true
        } catch {
            return await handle(error, of: record)
        }
    }

    func resumeIdleWaiters() {
        idleWaiters.endAll()
    }
}
