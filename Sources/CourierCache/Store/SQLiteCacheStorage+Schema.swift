import Courier
import Foundation
import GRDB

extension SQLiteCacheStorage {
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

    /// The schema migrations, applied in order on open.
    ///
    /// `entry` holds metadata only, so freshness checks never touch bodies; `body` holds one blob
    /// per entry and disappears with it (`ON DELETE CASCADE`). `AUTOINCREMENT` ids are never
    /// reused, so a replaced variant can never be confused with its successor.
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE entry (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    method TEXT NOT NULL,
                    url TEXT NOT NULL,
                    partitionKey TEXT NOT NULL,
                    varyKey TEXT NOT NULL,
                    vary BLOB NOT NULL,
                    status INTEGER NOT NULL,
                    headers BLOB NOT NULL,
                    requestTime REAL NOT NULL,
                    responseTime REAL NOT NULL,
                    bodySize INTEGER NOT NULL,
                    metaSize INTEGER NOT NULL,
                    storedAt REAL NOT NULL,
                    lastAccess REAL NOT NULL,
                    accessOrder INTEGER NOT NULL,
                    UNIQUE (partitionKey, url, method, varyKey)
                );
                CREATE INDEX entry_accessOrder ON entry(accessOrder);
                CREATE TABLE body (
                    entryId INTEGER PRIMARY KEY REFERENCES entry(id) ON DELETE CASCADE,
                    data BLOB NOT NULL
                );
                """)
        }
        // The entry count and total size, kept by triggers in the writing transaction (whichever
        // program writes), so eviction and statistics read one row instead of summing them all.
        migrator.registerMigration("v2-totals") { db in
            try db.execute(sql: """
                CREATE TABLE totals (
                    id INTEGER PRIMARY KEY CHECK (id = 1),
                    entries INTEGER NOT NULL,
                    bytes INTEGER NOT NULL
                );
                INSERT INTO totals (id, entries, bytes)
                    SELECT 1, COUNT(*), COALESCE(SUM(bodySize + metaSize), 0) FROM entry;
                CREATE TRIGGER entry_totals_insert AFTER INSERT ON entry BEGIN
                    UPDATE totals SET entries = entries + 1, bytes = bytes + NEW.bodySize + NEW.metaSize WHERE id = 1;
                END;
                CREATE TRIGGER entry_totals_delete AFTER DELETE ON entry BEGIN
                    UPDATE totals SET entries = entries - 1, bytes = bytes - OLD.bodySize - OLD.metaSize WHERE id = 1;
                END;
                CREATE TRIGGER entry_totals_update AFTER UPDATE OF bodySize, metaSize ON entry BEGIN
                    UPDATE totals SET bytes = bytes - OLD.bodySize - OLD.metaSize + NEW.bodySize + NEW.metaSize WHERE id = 1;
                END;
                """)
        }
        // The random key under which secret request values are hashed (see `SecretValues`).
        migrator.registerMigration("v3-secret-key") { db in
            try db.execute(sql: "CREATE TABLE secretKey (id INTEGER PRIMARY KEY CHECK (id = 1), key BLOB NOT NULL)")
        }
        return migrator
    }()

    /// The file's key for secret values, made (32 random bytes) the first time the file is opened:
    /// equal values hash alike across launches and processes, and nothing in the file is the value itself.
    static func secretKey(in writer: any DatabaseWriter) throws -> [UInt8] {
        try writer.write { db in
            var generator = SystemRandomNumberGenerator()
            let fresh = Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
            try db.execute(sql: "INSERT OR IGNORE INTO secretKey (id, key) VALUES (1, ?)", arguments: [fresh])
            return Array(try Data.fetchOne(db, sql: "SELECT key FROM secretKey WHERE id = 1") ?? fresh)
        }
    }
}
