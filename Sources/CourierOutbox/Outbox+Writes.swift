import Courier
import Foundation
import Logging
import OpenAPIRuntime

/// Keeping a write: the request built now, its body copied in, the item committed to disk.
extension Outbox {

    /// Keeps a write to send: returns once it is committed to disk, and starts sending.
    ///
    /// The request is built now, as the client would send it, without the client's default header
    /// fields, common query and secrets (added when it is sent). A file's or a form's body is copied
    /// into the outbox.
    /// - Parameters:
    ///   - endpoint: A POST, PUT, PATCH or DELETE.
    ///   - group: Items of one group are sent one after another in the order they were enqueued; items
    ///     of different groups don't wait for each other (one conversation, one document).
    /// - Returns: The item, with its number.
    /// - Throws: ``OutboxError/full(_:)``, ``OutboxError/notAWrite(method:)``,
    ///   ``OutboxError/invalidRequest(_:)`` or ``OutboxError/storage(_:)``.
    @discardableResult
    public func enqueue(_ endpoint: some Endpoint, group: String = "") async throws(OutboxError) -> OutboxItem {
        guard [.post, .put, .patch, .delete].contains(endpoint.method) else { throw .notAWrite(method: endpoint.method.rawValue) }
        // SQLite would keep the text up to the NUL: another group's, or another user's.
        guard !group.holdsNUL else { throw .invalidRequest(CourierError(.invalidRequest, detail: "A group's name can't hold a NUL byte")) }
        let kept: (request: KeptRequest, body: DeferredBody?)
        do {
            let deferred = try await client.deferredRequest(for: endpoint)
            kept = (try KeptRequest(deferred.request, redaction: client.configuration.redaction), deferred.body)
        } catch {
            throw .invalidRequest(error)
        }
        let identity = await client.identity(ifAuthenticating: kept.request.requiresAuthentication)
        if case .user(let name)? = identity, name.holdsNUL {
            throw .invalidRequest(CourierError(.invalidRequest, detail: "The signed-in user's identity holds a NUL byte"))
        }
        return try await usingFolder { () async throws(OutboxError) -> OutboxItem in
            let item = try await keep(kept.request, kept.body, group: group, identity: identity)
            subscribers.send(.enqueued(item))
            start()
            return item
        }
    }

    /// Commits an item to disk; a streamed body is copied in first, one at a time (see
    /// ``isCopyingStream``), within the room the limits leave.
    private func keep(
        _ request: KeptRequest, _ body: DeferredBody?, group: String, identity: CallIdentity?
    ) async throws(OutboxError) -> OutboxItem {
        var inline: Data?
        var file: (name: String, size: Int64)?
        let isStreamed = if case .stream? = body { true } else { false }
        if isStreamed { await copyTurn() }
        defer { if isStreamed { copyTurnEnded() } }
        switch body {
        case .bytes(let data)?: inline = data
        case .stream(let stream)?:
            do {
                let room = limits.maximumBytes - (try await store.usedBytes())
                file = try await files.write(stream, limit: room, tooLarge: .full(limits))
            } catch let error as OutboxError { throw error } catch {
                throw .storage("could not copy the body: \(error)")
            }
        case nil: break
        }
        let size = Int64(inline?.count ?? 0) + (file?.size ?? 0)
        do {
            let (store, limits) = (store, limits)
            return try await observed {
                try await store.insert(
                    group: group, identity: identity, request: request, body: inline, bodyFile: file?.name, size: size, limits: limits)
            }
        } catch {
            if let file { files.delete(file.name) }
            throw Self.storageError(error)
        }
    }

    /// Waits for the turn to copy a streamed body.
    private func copyTurn() async {
        guard isCopyingStream else {
            isCopyingStream = true
            return
        }
        await withCheckedContinuation { copyWaiters.append($0) }
    }

    /// Hands the turn to copy a streamed body to the next enqueue waiting for it.
    private func copyTurnEnded() {
        if copyWaiters.isEmpty { isCopyingStream = false } else { copyWaiters.removeFirst().resume() }
    }
}
