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
}
