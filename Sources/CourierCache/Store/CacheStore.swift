import Courier
import Foundation
import GRDB
import Logging

/// The persistent HTTP cache storage: one SQLite file in WAL mode, metadata and bodies in separate tables.
///
/// Reading a response's metadata never loads its body; the body is read on demand.
/// Writing a variant stores its metadata and body in one transaction, then evicts the least
/// recently used variants while the total size exceeds ``maximumSize``. Responses stored by
/// ``HTTPCache`` are written off the caller's path by the store's writer, in batches; reads see
/// them at once, and ``flush()``, ``close()`` or releasing the store writes them. Several
/// `CacheStore` instances — in one process or several — may share the file (WAL, 5 s busy
/// timeout, `synchronous = NORMAL`: a power cut may lose the last writes, never the file); what
/// another process stores is seen once it is committed.
///
/// A store fails loudly and degrades gracefully: every failed operation is logged with the file's
/// path and counted in ``statistics()``; a file damaged while in use is replaced (and deleted);
/// and ``openOrFallBack(fileURL:maximumSize:logger:)`` gives an app a working store (on disk, else in
/// memory, else one that stores nothing) when the file can't be opened at all.
public final class CacheStore: Sendable {
    /// The size limit in bytes (bodies plus approximate metadata).
    public let maximumSize: Int
    /// Where the database lives; `nil` for an in-memory store.
    public let fileURL: URL?
    /// What ``OpenStores`` files the store under: its file's standardized path; nil in memory.
    /// Made once: every commit looks up the other stores on the file.
    let fileKey: String?

    /// The database: replaced when a damaged file is recovered, nil when the store is unavailable.
    let database: Locked<OpenDatabase?>
    let logger: Logger
    let counters = StoreCounters()
    /// Variants used since the last write, oldest use first; written in one go (see ``touch(_:)``).
    let pendingTouches = PendingTouches()
    /// Responses accepted for storing, not yet committed (see ``enqueue(key:varySelection:status:headers:body:requestTime:responseTime:)``).
    let pending = PendingWrites()
    /// The serial queue the writer commits on, off every caller's path.
    let writerQueue = DispatchQueue(label: "courier.cache.writer")
    /// Bodies being copied from files on the writer's queue (see `enqueue(…bodyFile:…)`).
    let fileCopies = Locked(0)
    /// Bytes (bodies plus metadata) that may wait for the writer; beyond them a caller waits for it.
    let pendingWriteLimit: Int
    /// The default ``pendingWriteLimit``: 8 MiB.
    static let defaultPendingWriteLimit = 8 << 20

    /// Opens (or creates) the cache database at `fileURL`, recovering from a corrupt file.
    ///
    /// If the file is not a database or is corrupt (`SQLITE_NOTADB` / `SQLITE_CORRUPT`), it is moved
    /// aside with its `-wal`/`-shm` files, a fresh database is created, the damaged files are deleted
    /// (they may hold a user's data), and a warning is logged. The files are readable by their owner only.
    /// - Parameters:
    ///   - fileURL: the SQLite file; missing parent directories are created.
    ///   - maximumSize: the size limit in bytes; a variant larger than this is never stored.
    ///   - logger: where to report recovery and best-effort failures; silent by default.
    /// - Throws: ``CacheStoreError/cannotOpen(path:reason:)`` when the database cannot be opened even
    ///   after recovery (a read-only folder, a full disk…).
    public convenience init(
        fileURL: URL, maximumSize: Int,
        logger: Logger = Logger(label: "courier.cache", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws {
        try self.init(fileURL: fileURL, maximumSize: maximumSize, pendingWriteLimit: Self.defaultPendingWriteLimit, logger: logger)
    }

    /// ``init(fileURL:maximumSize:logger:)`` with another bound on the bytes waiting for the writer.
    init(fileURL: URL, maximumSize: Int, pendingWriteLimit: Int, logger: Logger = CacheStore.silentLogger) throws {
        self.maximumSize = maximumSize
        self.fileURL = fileURL
        self.fileKey = fileURL.standardizedFileURL.path
        self.logger = logger
        self.pendingWriteLimit = pendingWriteLimit
        do {
            self.database = Locked(try Self.open(fileURL: fileURL, logger: logger))
        } catch {
            throw CacheStoreError.cannotOpen(path: fileURL.path, reason: "\(error)")
        }
        // Other stores on this file in this process write what they accepted first, so this one reads it.
        for other in OpenStores.shared.add(self) { other.flushBlocking() }
    }

    private init(writer: (any DatabaseWriter)?, maximumSize: Int, logger: Logger) {
        self.maximumSize = maximumSize
        self.fileURL = nil
        self.fileKey = nil
        self.logger = logger
        self.pendingWriteLimit = Self.defaultPendingWriteLimit
        self.database = Locked(writer.flatMap { try? OpenDatabase(writer: $0) })
    }

    deinit {
        // Pending responses keep the store alive until written (the writer's block holds it);
        // uses recorded since are written here. Nothing else can reach the store any more.
        if pendingTouches.hasAny { drain() }
        OpenStores.shared.remove(self)
    }

    /// The default logger: silent.
    static let silentLogger = Logger(label: "courier.cache", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The store at `fileURL`, or — when that file can't be opened — one in memory for this run, or
    /// as a last resort a store that keeps nothing; either fallback logs an error. A client built
    /// on it always works; it only caches less.
    public static func openOrFallBack(
        fileURL: URL, maximumSize: Int,
        logger: Logger = Logger(label: "courier.cache", factory: { _ in SwiftLogNoOpLogHandler() })
    ) -> CacheStore {
        do {
            return try CacheStore(fileURL: fileURL, maximumSize: maximumSize, logger: logger)
        } catch {
            logger.error(
                "Cache file can't be opened; caching in memory for this run",
                metadata: ["path": "\(fileURL.path)", "error": "\(error)"])
        }
        do {
            return try inMemory(maximumSize: maximumSize, logger: logger)
        } catch {
            logger.error("In-memory cache can't be created either; nothing is cached", metadata: ["error": "\(error)"])
            return CacheStore(writer: nil, maximumSize: maximumSize, logger: logger)
        }
    }

    /// Creates an ephemeral store in memory, for tests and sessions that must leave no trace.
    public static func inMemory(
        maximumSize: Int,
        logger: Logger = Logger(label: "courier.cache", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws -> CacheStore {
        let queue = try DatabaseQueue(configuration: Self.configuration())
        try Self.migrator.migrate(queue)
        return CacheStore(writer: queue, maximumSize: maximumSize, logger: logger)
    }

    /// Records that a request was answered from the cache.
    package func recordHit() { counters.add(hits: 1) }

    /// Records that a request could not be answered from the cache.
    package func recordMiss() { counters.add(misses: 1) }

    /// The counters of this instance and the current size of the database.
    public func statistics() async throws -> CacheStatistics {
        let snapshot = counters.snapshot
        var statistics = CacheStatistics(
            hits: snapshot.hits, misses: snapshot.misses, evictions: snapshot.evictions,
            failures: snapshot.failures, recoveries: snapshot.recoveries)
        guard database.current != nil else { return statistics }
        await flush()
        let (count, bytes) = try await read("statistics") { db in
            let row = try Row.fetchOne(db, sql: "SELECT entries, bytes FROM totals")
            return (try row?.decode(Int.self, atIndex: 0) ?? 0, try row?.decode(Int.self, atIndex: 1) ?? 0)
        }
        // After the read, which may have found the file damaged and replaced it.
        let counted = counters.snapshot
        statistics.evictions = counted.evictions
        statistics.failures = counted.failures
        statistics.recoveries = counted.recoveries
        statistics.entryCount = count
        statistics.totalBytes = bytes
        return statistics
    }
}
