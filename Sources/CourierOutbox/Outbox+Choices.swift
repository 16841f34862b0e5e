import Courier
import Foundation
import Logging
import OpenAPIRuntime

/// What the app sees and decides: the items waiting or parked, a retry, a discard, a user's clear, the changes.
extension Outbox {

    /// Every item waiting or parked, oldest first. The first item of each group is the one that
    /// holds it: a parked first item holds its group until ``retry(_:)`` or ``discard(_:)``.
    public func items() async throws(OutboxError) -> [OutboxItem] {
        try await usingFolder { () async throws(OutboxError) -> [OutboxItem] in
            do { return try await observed { try await store.items() } } catch { throw Self.storageError(error) }
        }
    }

    /// Sends a parked item again (after the app fixed what the server refused), or a waiting one
    /// now; its give-up bound starts again.
    public func retry(_ id: OutboxItem.ID) async throws(OutboxError) {
        try await usingFolder { () async throws(OutboxError) in try await unpark(id) }
    }

    private func unpark(_ id: OutboxItem.ID) async throws(OutboxError) {
        let item: OutboxItem?
        do { item = try await observed { try await store.unpark(id) } } catch { throw Self.storageError(error) }
        guard let item else { throw .noSuchItem(id) }
        release(item.id)
        awaitingUser.remove(item.group)
        start()
    }

    /// Removes an item unsent (a parked write the user gave up on).
    public func discard(_ id: OutboxItem.ID) async throws(OutboxError) {
        try await usingFolder { () async throws(OutboxError) in try await remove(id) }
    }

    private func remove(_ id: OutboxItem.ID) async throws(OutboxError) {
        let removed: (item: OutboxItem, bodyFile: String?)?
        do { removed = try await observed { try await store.remove(id, synced: true) } } catch { throw Self.storageError(error) }
        guard let removed else { throw .noSuchItem(id) }
        if let name = removed.bodyFile { files.delete(name) }
        release(id)
        subscribers.send(.discarded(removed.item))
        start()
    }

    /// Removes every item of a user: call it at sign-out to drop their writes (keep them, and they
    /// wait until that user signs in again).
    /// - Returns: The items removed.
    @discardableResult
    public func clear(identity: String) async throws(OutboxError) -> [OutboxItem] {
        try await usingFolder { () async throws(OutboxError) -> [OutboxItem] in try await removeAll(identity: identity) }
    }

    private func removeAll(identity: String) async throws(OutboxError) -> [OutboxItem] {
        let removed: [(item: OutboxItem, bodyFile: String?)]
        do { removed = try await observed { try await store.removeAll(identity: identity) } } catch { throw Self.storageError(error) }
        for (item, bodyFile) in removed {
            if let bodyFile { files.delete(bodyFile) }
            release(item.id)
            subscribers.send(.discarded(item))
        }
        start()
        return removed.map(\.item)
    }

    /// The changes of every item from now on, in order: each call is a subscription of its own,
    /// which ends when its task is cancelled or the outbox stops.
    ///
    /// A subscription holds at most `limit` changes it has not read: a reader that falls further
    /// behind loses the oldest of them, never the latest. ``items()`` is what the outbox holds now.
    public nonisolated func changes(bufferingNewest limit: Int = 1_000) -> AsyncStream<OutboxChange> {
        subscribers.subscribe(bufferingNewest: limit)
    }
}
