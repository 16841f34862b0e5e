import Courier
import Foundation
import GRDB
import Logging

/// The persistent HTTP cache storage: one SQLite file in WAL mode, metadata and bodies in separate tables.
///
/// Reading a response's metadata never loads its body; a large body is read as a stream.
/// Writing a variant stores its metadata and body in one transaction, then evicts the least
/// recently used variants while the total size exceeds ``maximumSize``. A write costs no `fsync`
/// (WAL, `synchronous = NORMAL`: a power cut may lose the last writes, never the file). Several
/// `SQLiteCacheStorage` instances — in one process or several — may share the file (5 s busy timeout);
/// what one stores, the others read once it is committed.
///
/// A store fails loudly and degrades gracefully: every failed operation is logged with the file's
/// path (and counted by the ``HTTPCache`` it serves); a file damaged while in use is replaced (and
/// deleted, counted in ``recoveries``);
/// and ``openOrFallBack(fileURL:maximumSize:logger:)`` gives an app a working store (on disk, else in
/// memory, else one that stores nothing) when the file can't be opened at all.
public final class SQLiteCacheStorage: CacheStorage {
    /// The size limit in bytes (bodies plus approximate metadata).
    public let maximumSize: Int
    /// Where the database lives; `nil` for an in-memory store.
    public let fileURL: URL?
    /// The database: replaced when a damaged file is recovered, nil when the store is unavailable.
    let database: Locked<OpenDatabase?>
    /// Where the store reports its failures and recoveries, with the file's path.
    let logger: Logger
    /// How many times a file damaged while in use was replaced by a fresh one.
    let recovered = Locked(0)

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
    public init(
        fileURL: URL, maximumSize: Int,
        logger: Logger = Logger(label: "courier.cache", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws {
        self.maximumSize = maximumSize
        self.fileURL = fileURL
        self.logger = logger
        do {
            self.database = Locked(try Self.open(fileURL: fileURL, logger: logger))
        } catch {
            throw CacheStoreError.cannotOpen(path: fileURL.path, reason: "\(error)")
        }
    }

    private init(writer: (any DatabaseWriter)?, maximumSize: Int, logger: Logger) {
        self.maximumSize = maximumSize
        self.fileURL = nil
        self.logger = logger
        self.database = Locked(writer.flatMap { try? OpenDatabase(writer: $0) })
    }

    /// The store at `fileURL`, or — when that file can't be opened — one in memory for this run, or
    /// as a last resort a store that keeps nothing; either fallback logs an error. A client built
    /// on it always works; it only caches less.
    public static func openOrFallBack(
        fileURL: URL, maximumSize: Int,
        logger: Logger = Logger(label: "courier.cache", factory: { _ in SwiftLogNoOpLogHandler() })
    ) -> SQLiteCacheStorage {
        do {
            return try SQLiteCacheStorage(fileURL: fileURL, maximumSize: maximumSize, logger: logger)
        } catch {
            logger.error(
                "Cache file can't be opened; caching in memory for this run",
                metadata: ["path": "\(fileURL.path)", "error": "\(error)"])
        }
        do {
            return try inMemory(maximumSize: maximumSize, logger: logger)
        } catch {
            logger.error("In-memory cache can't be created either; nothing is cached", metadata: ["error": "\(error)"])
            return SQLiteCacheStorage(writer: nil, maximumSize: maximumSize, logger: logger)
        }
    }

    /// An ephemeral SQLite store in memory: ``openOrFallBack(fileURL:maximumSize:logger:)``'s
    /// fallback (``InMemoryCacheStorage`` is the in-memory storage to choose).
    static func inMemory(
        maximumSize: Int,
        logger: Logger = Logger(label: "courier.cache", factory: { _ in SwiftLogNoOpLogHandler() })
    ) throws -> SQLiteCacheStorage {
        let queue = try DatabaseQueue(configuration: Self.configuration())
        try Self.migrator.migrate(queue)
        return SQLiteCacheStorage(writer: queue, maximumSize: maximumSize, logger: logger)
    }

    /// How many times this instance replaced a file damaged while in use by a fresh one (and
    /// deleted the damaged one).
    public var recoveries: Int { recovered.current }

    /// The key of the file's secret values (see ``CacheStorage/secretKey()``), made with the file;
    /// a store without a database (which stores nothing) hashes under a key of this run.
    public func secretKey() async throws -> [UInt8] {
        database.current?.secretKey ?? Self.ephemeralKey
    }

    private static let ephemeralKey: [UInt8] = {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }()

    /// Closes the file (its write-ahead log checkpointed and emptied); later calls fail with
    /// ``CacheStoreError/unavailable``. Releasing the store closes it too.
    public func close() async {
        let closed = database.withLock { current in
            defer { current = nil }
            return current
        }
        closed?.lookups?.close()
        if let writer = closed?.writer { Self.checkpoint(writer) }
        try? (closed?.writer as? DatabasePool)?.close()
    }
}
