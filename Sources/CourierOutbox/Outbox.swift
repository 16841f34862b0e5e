import Courier
import Foundation
import Logging
import OpenAPIRuntime

/// Writes made while offline, kept on disk and sent through a `Client` once each, in
/// order within their group, across restarts and crashes.
///
/// ```swift
/// let outbox = try Outbox(client: client, folder: appSupport.appendingPathComponent("Outbox"))
/// await outbox.resume()                       // at app start: send what earlier runs left
/// let item = try await outbox.enqueue(SendMessage(text: "On my way"), group: "conversation-42")
/// for await change in outbox.changes() { … }  // enqueued, sending, sent, willRetry, parked, discarded…
/// ```
///
/// - An item is committed to its own SQLite file (`synchronous = FULL`) before ``enqueue(_:group:)``
///   returns, with an `Idempotency-Key` fixed then; it is removed only once the server's answer is
///   known. A process killed at any point sends it again, with the same key: a server that honours
///   keys applies it once.
/// - Credentials (`Authorization`, `Proxy-Authorization`, `Cookie`, `X-Auth-Token`) and every
///   header field on the client's secret list are never written: the chain adds them when the item
///   is sent, and only for the user who was signed in at enqueue.
/// - A transient failure (no connection, a timeout, `5xx`, `429`, `408`, `409`) waits with backoff
///   and the server's `Retry-After`, up to the give-up bound of ``Backoff``; a refusal parks the item
///   and holds back its group alone.
/// - An item is delivered only when the server answered that write: a `301` or `302` (which would
///   turn it into a GET without its body) and a `307` or `308` to another origin park it, naming the
///   status and the `Location`; a `303` (the write was taken) and a same-origin `307` or `308` are
///   followed, with the same method, body and `Idempotency-Key`.
/// - A row of the outbox's file that can't be read parks its own item, unreadable; every other
///   group goes on. A storage failure is logged once and sent as ``OutboxChange/storageFailed(_:)``.
/// - One folder has one outbox at a time: a second one, in any process, fails with
///   ``OutboxError/folderInUse(_:)`` until the first stops.
public actor Outbox {
    /// The client items are sent through (its middlewares, credentials and transport).
    public nonisolated let client: Client
    /// How much the outbox holds.
    public nonisolated let limits: Limits
    /// Where the outbox reports a failing storage; silent by default.
    public nonisolated let logger: Logger
    let backoff: Backoff
    let store: OutboxStore
    let files: OutboxFiles
    let lock: FolderLock
    let clock: any Clock<Duration>
    let random: @Sendable () -> Double
    /// Runs after an item's answer is known and before it is removed (the crash tests stop there).
    let beforeRemoval: (@Sendable (OutboxItem) async -> Void)?
    let subscribers = Subscribers()

    /// Whether items are sent (after ``resume()``, ``enqueue(_:group:)`` or ``flush()``; until ``stop()``).
    var isSending = false
    /// Callers waiting for a stop under way to end; nil when none is (see `Outbox+Folder`).
    var stopWaiters: [CheckedContinuation<Void, Never>]?
    /// The uses of the folder under way, which a stop waits for before it gives the folder up.
    var folderUses = 0
    /// The stop waiting for the last use of the folder to end.
    var folderUsesEnded: CheckedContinuation<Void, Never>?
    /// Whether ``stop()`` gave the folder up and nothing has started sending since.
    var hasStopped = false
    /// Whether a streamed body is being copied in: one at a time, so that copies together stay
    /// within the room the limits leave.
    var isCopyingStream = false
    /// Enqueues waiting for their turn to copy a streamed body.
    var copyWaiters: [CheckedContinuation<Void, Never>] = []
    /// The groups being sent now, one task each.
    var lanes: [String: Task<Void, Never>] = [:]
    /// Items backing off, until their timer ends.
    var holds: [OutboxItem.ID: Hold] = [:]
    /// Whether the storage failed last time it was used (it is logged and sent once a run).
    var storageIsFailing = false
    /// The failed uses of the storage in a row, for the wait before the next try.
    var storageFailures = 0
    /// The next try of a storage that failed to say what to send.
    var storageRetry: Task<Void, Never>?
    /// Groups whose next item is for a user not signed in, until something wakes the outbox.
    var awaitingUser: Set<String> = []
    /// The next check of who is signed in, while a group waits for its user.
    var userCheck: Task<Void, Never>?
    /// How often the outbox looks again whether a waiting item's user is signed in: a credential
    /// provider says who is signed in when asked, and tells nobody when that changes.
    static let userCheckInterval = Duration.seconds(30)
    /// Callers of ``flush()`` waiting for every group to be sent, held or parked.
    let idleWaiters = IdleWaiters()
    var connectivity: ConnectivityWatch?

    /// Opens (or creates) the outbox kept in `folder`.
    /// - Parameters:
    ///   - client: The client items are sent through.
    ///   - folder: The outbox's own folder (its database and the bodies of files and forms).
    ///   - limits: How many items and bytes it holds.
    ///   - backoff: How long an item waits after a transient failure, and when the outbox gives up.
    ///   - logger: Where a failing storage is reported (once, until it works again); silent by default.
    /// - Throws: ``OutboxError/folderInUse(_:)`` when another outbox has the folder open,
    ///   ``OutboxError/storage(_:)`` when the folder or its database can't be opened.
    public init(
        client: Client, folder: URL, limits: Limits = Limits(), backoff: Backoff = Backoff(),
        logger: Logger = Logger(label: "courier.outbox", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws(OutboxError) {
        try self.init(client: client, folder: folder, limits: limits, backoff: backoff, logger: logger, clock: ContinuousClock())
    }

    /// An outbox on a clock of the caller's, with its jitter and a step before each removal (tests).
    package init(
        client: Client, folder: URL, limits: Limits = Limits(), backoff: Backoff = Backoff(),
        logger: Logger = Logger(label: "courier.outbox", factory: { _ in SwiftLogNoOpLogHandler() }), clock: any Clock<Duration>,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0 ... 1) },
        beforeRemoval: (@Sendable (OutboxItem) async -> Void)? = nil
    ) throws(OutboxError) {
        self.client = client
        self.limits = limits
        self.logger = logger
        self.backoff = backoff
        self.clock = clock
        self.random = random
        self.beforeRemoval = beforeRemoval
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            // Before anything is read or deleted: another outbox's body files are not left-overs.
            lock = FolderLock(folder: folder)
            try lock.acquire()
            let database = folder.appendingPathComponent("outbox.sqlite")
            _ = PrivateFile.create(at: database, excludedFromBackup: false)
            store = try OutboxStore(file: database)
            for suffix in ["-wal", "-shm"] {
                PrivateFile.protect(URL(fileURLWithPath: database.path + suffix), excludedFromBackup: false)
            }
            files = try OutboxFiles(folder: folder.appendingPathComponent("bodies"))
            files.deleteAll(except: try store.bodyFiles())
        } catch let error as OutboxError {
            throw error
        } catch {
            throw .storage("could not open the outbox in \(folder.lastPathComponent): \(error)")
        }
    }

    // MARK: Writes

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
        let kept: (request: KeptRequest, body: KeptBody?)
        do {
            kept = try await client.keptRequest(for: endpoint)
        } catch {
            throw .invalidRequest(error)
        }
        let identity = await client.keepingIdentity(requiresAuthentication: kept.request.requiresAuthentication)
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
        _ request: KeptRequest, _ body: KeptBody?, group: String, identity: CallIdentity?
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

    // MARK: Listing and choices

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

    static func storageError(_ error: any Error) -> OutboxError {
        (error as? OutboxError) ?? .storage("\(error)")
    }

    /// Runs one use of the storage: a failure is logged and sent once until a use works again
    /// (then that is logged and sent too). The outbox's own refusals (full, no such item) are not
    /// failures of the storage.
    func observed<T: Sendable>(_ operation: () async throws -> T) async throws -> T {
        do {
            let value = try await operation()
            storageWorked()
            return value
        } catch let error as OutboxError {
            if case .storage = error { storageFailed(error) } else { storageWorked() }
            throw error
        } catch {
            storageFailed(.storage("\(error)"))
            throw error
        }
    }

    private func storageWorked() {
        storageFailures = 0
        guard storageIsFailing else { return }
        storageIsFailing = false
        logger.notice("The outbox's storage works again")
        subscribers.send(.storageWorksAgain)
    }

    private func storageFailed(_ error: OutboxError) {
        storageFailures += 1
        guard !storageIsFailing else { return }
        storageIsFailing = true
        logger.error("The outbox's storage failed; sending waits until it works again", metadata: ["error": "\(error)"])
        subscribers.send(.storageFailed(error))
    }
}
