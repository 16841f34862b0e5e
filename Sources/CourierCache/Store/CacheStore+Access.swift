import Courier
import Foundation
import GRDB
import Logging

extension CacheStore {
    /// Reads through the current database (see ``access(_:_:)``); a read that finds the file
    /// damaged is read again from the fresh file that replaced it.
    func read<T: Sendable>(_ operation: String, _ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await access(operation) { try await $0.read(value) }
        } catch where Self.isDamage(error) && database.current != nil {
            return try await access(operation) { try await $0.read(value) }
        }
    }

    /// Writes through the current database (see ``access(_:_:)``).
    func write<T: Sendable>(_ operation: String, _ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await access(operation) { try await $0.write(updates) }
    }

    /// Runs `work` on the current database. A failure is never silent, even when the caller goes on
    /// without the cache: it is logged with the file's path and counted in ``statistics()``; when
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

    /// ``access(_:_:)`` on the calling thread, for the writer's own queue.
    func accessNow<T>(_ operation: String, _ work: (any DatabaseWriter) throws -> T) throws -> T {
        let open = try currentDatabase()
        do {
            return try work(open.writer)
        } catch {
            throw failed(operation, error, open.writer)
        }
    }

    /// The variants of `key` with their small bodies, read on the calling thread through one of the
    /// pool's readers, with the failures handled as by ``access(_:_:)``. In WAL mode a read never
    /// waits for a writer. One statement is its own read transaction in SQLite, so GRDB's explicit
    /// one (`unsafeRead` skips it) would add two statements to every hit and isolate nothing more.
    func readVariants(of key: CacheKey, inlineBodyLimit: Int) throws -> [StoredVariant] {
        let open = try currentDatabase()
        do {
            return try open.writer.unsafeRead { db in try Self.variantsWithBodies(of: key, inlineBodyLimit: inlineBodyLimit, db) }
        } catch {
            throw failed("lookup", error, open.writer)
        }
    }

    private func currentDatabase() throws -> OpenDatabase {
        guard let open = database.current else {
            counters.add(failures: 1)
            throw CacheStoreError.unavailable
        }
        return open
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
            guard let active = current, active.writer === broken else { return }
            do {
                let aside = try Self.moveAside(fileURL)
                current = try Self.open(fileURL: fileURL, logger: logger)
                Self.deleteAside(aside)
                counters.add(recoveries: 1)
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

extension CacheStore {
    /// The keyed hash of secret request values under the current file's key; a store without a
    /// database (which stores nothing) hashes under a key of this run.
    var secrets: HMAC { database.current?.secrets ?? Self.ephemeralSecrets }

    private static let ephemeralSecrets: HMAC = {
        var generator = SystemRandomNumberGenerator()
        return HMAC(key: (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }()
}
