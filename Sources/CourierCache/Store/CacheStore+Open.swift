import Courier
import Foundation
import GRDB
import Logging

extension CacheStore {
    /// The connection settings: a 5 s busy timeout so that several processes can share the file,
    /// and `synchronous = NORMAL`.
    ///
    /// In WAL mode, `NORMAL` syncs the log at checkpoints rather than at every commit: a power cut
    /// (not an app crash) may lose the last commits, never the file's integrity. For a cache, whose
    /// entries the network can always give again, that is the right trade for a write that costs
    /// no `fsync`.
    static func configuration() -> Configuration {
        var configuration = Configuration()
        configuration.label = "courier.cache"
        configuration.busyMode = .timeout(5)
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // 8 MiB of pages per connection (SQLite's default is 2 MiB): the index and the
            // recently read rows of a large cache stay in memory instead of a read call per page.
            try db.execute(sql: "PRAGMA cache_size = -8192")
            // A large body (a download) passes through the WAL; once checkpointed, the WAL shrinks
            // back to 16 MiB instead of keeping that size on disk for good.
            try db.execute(sql: "PRAGMA journal_size_limit = 16777216")
            // Deleted rows are overwritten, not left in free pages: a signed-out user's responses
            // are gone from the file, not only from its index.
            try db.execute(sql: "PRAGMA secure_delete = ON")
        }
        return configuration
    }

    /// Opens the pool (see ``openRecovering(fileURL:logger:)``).
    static func open(fileURL: URL, logger: Logger) throws -> OpenDatabase {
        try OpenDatabase(writer: try openRecovering(fileURL: fileURL, logger: logger))
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
