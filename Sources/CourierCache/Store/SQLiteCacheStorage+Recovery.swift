import Courier
import Foundation
import GRDB
import Logging

extension SQLiteCacheStorage {
    /// Reads through the current database on the calling thread (see ``accessNow(_:_:)``); a read
    /// that finds the file damaged is read again from the fresh file that replaced it.
    ///
    /// Every read of the pool is synchronous: a reader is then only ever held by a closure that
    /// runs to its end, so a thread waiting for one always gets it. An asynchronous read holds its
    /// reader until its task resumes, and threads of Swift's pool blocked waiting for readers
    /// deadlocked with such reads (64 concurrent tasks). It is also three thread hops cheaper.
    /// One statement is its own read transaction in SQLite, so GRDB's explicit one (`unsafeRead`
    /// skips it) would add two statements to every read and isolate nothing more.
    func read<T>(_ operation: String, _ value: (Database) throws -> T) throws -> T {
        try readOpen(operation) { try $0.writer.unsafeRead(value) }
    }

    /// ``read(_:_:)`` with the whole open database, its lookup connections included.
    func readOpen<T>(_ operation: String, _ work: (OpenDatabase) throws -> T) throws -> T {
        do {
            return try accessOpenNow(operation, work)
        } catch where isDamage(error) && database.current != nil {
            return try accessOpenNow(operation, work)
        }
    }

    /// Writes in one transaction through the current database, waiting on the calling thread for
    /// GRDB's writer queue (which runs nothing but such closures); see ``accessNow(_:_:)``.
    func writeNow<T>(_ operation: String, _ updates: (Database) throws -> T) throws -> T {
        try accessNow(operation) { try $0.write(updates) }
    }

    /// Writes through the current database off the calling thread, for long writes (a file's copy).
    func write<T: Sendable>(_ operation: String, _ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await access(operation) { try await $0.write(updates) }
    }

    /// Runs `work` on the current database. A failure is never silent, even when the caller goes on
    /// without the cache: it is logged with the file's path and counted by the cache; when
    /// the file itself is damaged (overwritten, truncated, deleted), a fresh database takes its
    /// place (the damaged one is deleted), so later calls cache again.
    func access<T>(_ operation: String, _ work: (any DatabaseWriter) async throws -> T) async throws -> T {
        let open = try currentDatabase()
        do {
            return try await work(open.writer)
        } catch {
            throw failed(operation, error, open.writer)
        }
    }

    /// ``access(_:_:)`` on the calling thread.
    func accessNow<T>(_ operation: String, _ work: (any DatabaseWriter) throws -> T) throws -> T {
        try accessOpenNow(operation) { try work($0.writer) }
    }

    /// ``accessNow(_:_:)`` with the whole open database, its lookup connections included.
    func accessOpenNow<T>(_ operation: String, _ work: (OpenDatabase) throws -> T) throws -> T {
        let open = try currentDatabase()
        do {
            return try work(open)
        } catch {
            throw failed(operation, error, open.writer)
        }
    }

    private func currentDatabase() throws -> OpenDatabase {
        guard let open = database.current else {
            throw CacheStoreError.unavailable
        }
        return open
    }

    /// Logs a failed operation, recovering a damaged file; returns the error to rethrow.
    private func failed(_ operation: String, _ error: any Error, _ writer: any DatabaseWriter) -> any Error {
        guard !Self.isCancellation(error) else { return error }
        logger.error(
            "Cache store operation failed",
            metadata: ["path": "\(fileURL?.path ?? ":memory:")", "operation": "\(operation)", "error": "\(error)"])
        if isDamage(error) { recover(replacing: writer) }
        return error
    }

    /// Moves a damaged file aside and opens a fresh one, once, whichever call noticed first.
    private func recover(replacing broken: any DatabaseWriter) {
        guard let fileURL else { return }
        database.withLock { current in
            guard let active = current, active.writer === broken else { return }
            active.lookups?.close()
            do {
                let aside = try Self.moveAside(fileURL)
                current = try Self.open(fileURL: fileURL, logger: logger)
                Self.deleteAside(aside)
                recovered.withLock { $0 += 1 }
                logger.warning(
                    "Cache database was damaged while in use; deleted and recreated",
                    metadata: ["path": "\(fileURL.path)"])
            } catch {
                logger.error(
                    "Cache database could not be recreated; the cache is off until the app restarts",
                    metadata: ["path": "\(fileURL.path)", "error": "\(error)"])
                current = nil
            }
        }
    }

    /// Whether an error says this store's file can't be trusted any more. A file that can't be
    /// opened is damaged only when it is gone: in place, it is healthy, and the process is out of
    /// file descriptors (`EMFILE`) or was refused it, which moving it aside would only make worse.
    func isDamage(_ error: any Error) -> Bool {
        guard Self.isDamage(error) else { return false }
        guard (error as? DatabaseError)?.resultCode == .SQLITE_CANTOPEN, let fileURL else { return true }
        return !FileManager.default.fileExists(atPath: fileURL.path)
    }

    /// Whether an error's code says a file can't be trusted (rather than, say, a busy database).
    static func isDamage(_ error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        switch error.resultCode {
        case .SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_IOERR, .SQLITE_CANTOPEN: return true
        case .SQLITE_READONLY: return error.extendedResultCode == .SQLITE_READONLY_DBMOVED
        default: return false
        }
    }

    private static func isCancellation(_ error: any Error) -> Bool {
        error is CancellationError || (error as? DatabaseError)?.resultCode == .SQLITE_INTERRUPT
    }
}

extension SQLiteCacheStorage {
    /// Opens the pool (see ``openRecovering(fileURL:logger:)``).
    static func open(fileURL: URL, logger: Logger) throws -> OpenDatabase {
        try OpenDatabase(writer: try openRecovering(fileURL: fileURL, logger: logger), lookups: LookupReaders(path: fileURL.path))
    }

    /// Opens the pool, moving a corrupt file aside and retrying once.
    static func openRecovering(fileURL: URL, logger: Logger) throws -> DatabasePool {
        try FileManager.default.createDirectory(
            at: fileURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        do {
            return try openPool(fileURL: fileURL)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB {
            let aside = try moveAside(fileURL)
            let pool = try openPool(fileURL: fileURL)
            deleteAside(aside)
            logger.warning(
                "Cache database corrupt; deleted and recreated",
                metadata: ["path": "\(fileURL.path)", "error": "\(error.resultCode)"])
            return pool
        }
    }

    private static func openPool(fileURL: URL) throws -> DatabasePool {
        // Created private before SQLite opens it: SQLite gives the `-wal` and `-shm` files the
        // database's permissions. A file from before is made private too.
        _ = PrivateFile.create(at: fileURL)
        // DatabasePool always runs in WAL mode (setting journal_mode inside a transaction would be ignored).
        let pool = try DatabasePool(path: fileURL.path, configuration: configuration())
        try migrator.migrate(pool)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: fileURL.path + suffix) {
            PrivateFile.protect(URL(fileURLWithPath: fileURL.path + suffix))
        }
        return pool
    }

    /// Deletes a damaged database moved aside, with its journals, once a fresh one is open: its
    /// bytes may hold a user's data, and nothing can read them any more.
    static func deleteAside(_ aside: URL) {
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: aside.path + suffix)
        }
    }

    /// Moves the database and its `-wal` / `-shm` files to `<name>.corrupt-<ms>`; returns the new database URL.
    static func moveAside(_ fileURL: URL) throws -> URL {
        let stamp = Int((Date().timeIntervalSince1970 * 1000).rounded())
        let aside = fileURL.deletingLastPathComponent()
            .appendingPathComponent("\(fileURL.lastPathComponent).corrupt-\(stamp)")
        let manager = FileManager.default
        for suffix in ["", "-wal", "-shm"] {
            let source = URL(fileURLWithPath: fileURL.path + suffix)
            guard manager.fileExists(atPath: source.path) else { continue }
            try manager.moveItem(at: source, to: URL(fileURLWithPath: aside.path + suffix))
        }
        return aside
    }
}

/// A store's open database: the GRDB pool (or queue, in memory) every read and write goes
/// through, with the file's key for secret values. Replaced whole when a damaged file is recovered.
struct OpenDatabase: Sendable {
    let writer: any DatabaseWriter
    /// The lookups' connections to the file; nil in memory, where the writer's one connection reads.
    let lookups: LookupReaders?
    /// The file's own random key for secret request values (see ``SQLiteCacheStorage/secretKey(in:)``).
    let secretKey: [UInt8]

    init(writer: any DatabaseWriter, lookups: LookupReaders? = nil) throws {
        self.writer = writer
        self.lookups = lookups
        secretKey = try SQLiteCacheStorage.secretKey(in: writer)
    }
}
