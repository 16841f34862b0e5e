import Courier
import Foundation
import GRDB
import Logging

extension CacheStore {
    /// Reads through the current database (see ``access(_:_:)``).
    func read<T: Sendable>(_ operation: String, _ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await access(operation) { try await $0.read(value) }
    }

    /// Writes through the current database (see ``access(_:_:)``).
    func write<T: Sendable>(_ operation: String, _ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await access(operation) { try await $0.write(updates) }
    }

    /// Runs `work` on the current database. A failure is never silent, even when the caller goes on
    /// without the cache: it is logged with the file's path and counted in ``statistics()``; when
    /// the file itself is damaged (overwritten, truncated, deleted), it is moved aside and a fresh
    /// database takes its place, so later calls cache again.
    private func access<T>(_ operation: String, _ work: (any DatabaseWriter) async throws -> T) async throws -> T {
        let writer = try currentWriter()
        do {
            return try await work(writer)
        } catch {
            throw failed(operation, error, writer)
        }
    }

    /// ``access(_:_:)`` on the calling thread, for short reads and for the writer's own queue.
    func accessNow<T>(_ operation: String, _ work: (any DatabaseWriter) throws -> T) throws -> T {
        let writer = try currentWriter()
        do {
            return try work(writer)
        } catch {
            throw failed(operation, error, writer)
        }
    }

    /// Reads on the calling thread, in one read transaction (GRDB's schema check and the query
    /// share its snapshot and its WAL read lock). In WAL mode a read never waits for a writer.
    func readNow<T>(_ operation: String, _ value: (Database) throws -> T) throws -> T {
        try accessNow(operation) { try $0.read(value) }
    }

    private func currentWriter() throws -> any DatabaseWriter {
        guard let writer = database.current else {
            counters.add(failures: 1)
            throw CacheStoreError.unavailable
        }
        return writer
    }

    /// Logs and counts a failed operation, recovering a damaged file; returns the error to rethrow.
    private func failed(_ operation: String, _ error: any Error, _ writer: any DatabaseWriter) -> any Error {
        guard !Self.isCancellation(error) else { return error }
        counters.add(failures: 1)
        logger.error(
            "Cache store operation failed",
            metadata: ["path": "\(fileURL?.path ?? ":memory:")", "operation": "\(operation)", "error": "\(error)"])
        if Self.isDamage(error) { recover(replacing: writer) }
        return error
    }

    /// Moves a damaged file aside and opens a fresh one, once, whichever call noticed first.
    private func recover(replacing broken: any DatabaseWriter) {
        guard let fileURL else { return }
        database.withLock { current in
            guard let active = current, active === broken else { return }
            do {
                let aside = try Self.moveAside(fileURL)
                current = try Self.openRecovering(fileURL: fileURL, logger: logger)
                hot.invalidate()
                counters.add(recoveries: 1)
                logger.warning(
                    "Cache database was damaged while in use; moved aside and recreated",
                    metadata: ["path": "\(fileURL.path)", "aside": "\(aside.path)"])
            } catch {
                logger.error(
                    "Cache database could not be recreated; the cache is off until the app restarts",
                    metadata: ["path": "\(fileURL.path)", "error": "\(error)"])
                current = nil
            }
        }
    }

    /// Whether an error says the file can't be trusted any more (rather than, say, a busy database).
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
