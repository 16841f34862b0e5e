import Courier
import Foundation
import GRDB

/// The outbox's SQLite file: one row per item, committed with `synchronous = FULL` so that a write
/// `enqueue` returned for survives a power cut, not only a crash. A removal after the server's
/// answer and a failed attempt's count are committed without `fsync`: a power cut that undoes one
/// only sends the item again, with its key.
///
/// Small bodies live in the row; a file's or a form's body in a file of the outbox's `bodies`
/// folder, written and synced before the row that names it is committed. Every access runs on
/// GRDB's own queue (its async API): a synced commit can block for long, and must not hold one of
/// Swift's shared threads meanwhile.
struct OutboxStore: Sendable {
    /// An item's row: what is listed, and what is sent (nil when the row can't be read: see
    /// ``StoredRow``).
    struct Record: Sendable {
        var item: OutboxItem
        var request: KeptRequest?
        var identity: CallIdentity?
        var body: Data?
        var bodyFile: String?
        /// Whether the row can't be read and is not parked as unreadable on disk yet.
        var needsParking: Bool
        /// The sends counted against the give-up bound since it last started.
        var spentAttempts: Int
        /// When the give-up bound last started: at enqueue, or at the app's ``Outbox/retry(_:)``.
        var budgetStart: Date
        /// Whether the row's group could be read: one that can't belongs to no lane.
        var isInAGroup = true
    }

    private let queue: DatabaseQueue

    init(file: URL) throws {
        var configuration = Configuration()
        configuration.label = "courier.outbox"
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            // Every commit is synced to disk (the WAL's, with WAL): a returned `enqueue` is kept.
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // A removed item's body is overwritten, not left in a free page.
            try db.execute(sql: "PRAGMA secure_delete = ON")
        }
        queue = try DatabaseQueue(path: file.path, configuration: configuration)
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        try Self.migrator.migrate(queue)
    }

    private static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        // `AUTOINCREMENT`: an id an app kept never names a later item.
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE item (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    grp TEXT NOT NULL,
                    identity TEXT,
                    request BLOB NOT NULL,
                    body BLOB,
                    bodyFile TEXT,
                    size INTEGER NOT NULL,
                    state TEXT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    failure BLOB,
                    enqueuedAt REAL NOT NULL
                );
                CREATE INDEX item_group ON item(grp, id);
                """)
        }
        // The give-up bound: sends counted against it, and when it last started (NULL: at enqueue).
        migrator.registerMigration("v2") { db in
            try db.execute(sql: """
                ALTER TABLE item ADD COLUMN spentAttempts INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE item ADD COLUMN budgetStart REAL;
                """)
        }
        return migrator
    }()

    /// The columns an item is listed from: every one but the body.
    private static let listed =
        "id, grp, identity, request, size, state, attempts, failure, enqueuedAt, spentAttempts, budgetStart, length(failure) AS failureSize"

    /// The bytes every item takes (bodies, requests and kept failures), against ``Outbox/Limits``.
    private static let usedBytes = "COALESCE(SUM(size + COALESCE(length(failure), 0)), 0)"

    /// Adds an item unless the outbox is full; its id and the time it was committed.
    func insert(
        group: String, identity: CallIdentity?, request: KeptRequest, body: Data?, bodyFile: String?, size: Int64, limits: Outbox.Limits
    ) async throws -> OutboxItem {
        let encoded = try JSONEncoder().encode(request)
        let total = size + Int64(encoded.count)
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970)
        let column = Self.column(identity)
        return try await queue.write { db -> OutboxItem in
            let row = try Row.fetchOne(db, sql: "SELECT COUNT(*) AS n, \(Self.usedBytes) AS bytes FROM item")
            let count = row.flatMap { Int.fromDatabaseValue($0["n"]) } ?? 0
            let bytes = row.flatMap { Int64.fromDatabaseValue($0["bytes"]) } ?? 0
            guard count < limits.maximumItems, bytes + total <= limits.maximumBytes else { throw OutboxError.full(limits) }
            try db.execute(
                sql: """
                    INSERT INTO item (grp, identity, request, body, bodyFile, size, state, attempts, enqueuedAt)
                    VALUES (?, ?, ?, ?, ?, ?, 'waiting', 0, ?)
                    """,
                arguments: [group, column, encoded, body, bodyFile, total, now.timeIntervalSince1970])
            return OutboxItem(
                id: OutboxItem.ID(rawValue: db.lastInsertedRowID), group: group, operationName: request.operationName,
                method: request.method, path: request.target, idempotencyKey: request.idempotencyKey, identity: Self.name(identity),
                state: .waiting, sends: 0, lastFailure: nil, enqueuedAt: now, size: total)
        }
    }

    /// The bytes the items take now (a streamed body is copied within what is left).
    func usedBytes() async throws -> Int64 {
        try await queue.read { db in try Int64.fetchOne(db, sql: "SELECT \(Self.usedBytes) FROM item") ?? 0 }
    }

    /// Every item, oldest first (one whose row can't be read as parked and unreadable).
    func items() async throws -> [OutboxItem] {
        try await queue.read { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.listed) FROM item ORDER BY id").map { StoredRow($0).item }
        }
    }

    /// The first item of each group, oldest first, without its body: what may be sent next, and
    /// whether it is an unreadable row to park.
    func heads() async throws -> [Record] {
        try await queue.read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Self.listed) FROM item WHERE id IN (SELECT MIN(id) FROM item GROUP BY grp) ORDER BY id
                """).map { StoredRow($0).record }
        }
    }

    /// The oldest item of a group, with its request and body, to send it.
    func head(of group: String) async throws -> Record? {
        try await queue.read { db in
            try Row.fetchOne(
                db, sql: "SELECT *, length(failure) AS failureSize FROM item WHERE grp = ? ORDER BY id LIMIT 1", arguments: [group]
            ).map { StoredRow($0).record }
        }
    }

    /// Records a failed attempt; `park` stops the item until the app retries it; `counts` adds it
    /// to the sends against the give-up bound.
    func recordFailure(_ id: OutboxItem.ID, _ failure: OutboxItem.Failure, park: Bool, counts: Bool) async throws -> OutboxItem? {
        let encoded = try JSONEncoder().encode(failure)
        return try await writeWithoutSync { db in
            try db.execute(
                sql: "UPDATE item SET attempts = attempts + 1, spentAttempts = spentAttempts + ?, failure = ?, state = ? WHERE id = ?",
                arguments: [counts ? 1 : 0, encoded, park ? "parked" : "waiting", id.rawValue])
            return try Self.fetchItem(id, db)
        }
    }

    /// Parks an item without an attempt (its row can't be read); its stored request is kept as it is.
    func park(_ id: OutboxItem.ID, _ failure: OutboxItem.Failure) async throws -> OutboxItem? {
        let encoded = try JSONEncoder().encode(failure)
        return try await queue.write { db in
            try db.execute(sql: "UPDATE item SET failure = ?, state = 'parked' WHERE id = ?", arguments: [encoded, id.rawValue])
            return try Self.fetchItem(id, db)
        }
    }

    /// Makes a parked item wait to be sent again, with a fresh give-up bound.
    func unpark(_ id: OutboxItem.ID) async throws -> OutboxItem? {
        let now = Date().timeIntervalSince1970
        return try await queue.write { db in
            try db.execute(
                sql: "UPDATE item SET state = 'waiting', spentAttempts = 0, budgetStart = ? WHERE id = ?", arguments: [now, id.rawValue])
            return try Self.fetchItem(id, db)
        }
    }

    /// Removes an item; the name of its body's file, for the caller to delete once the row is gone.
    /// `synced` for the app's own removal (a discard must survive a power cut: the item would be
    /// sent); not after the server's answer, whose loss only sends the item again with its key.
    func remove(_ id: OutboxItem.ID, synced: Bool) async throws -> (item: OutboxItem, bodyFile: String?)? {
        let remove = { @Sendable (db: Database) throws -> (item: OutboxItem, bodyFile: String?)? in
            guard let row = try Row.fetchOne(db, sql: "SELECT \(Self.listed), bodyFile FROM item WHERE id = ?", arguments: [id.rawValue])
            else { return nil }
            try db.execute(sql: "DELETE FROM item WHERE id = ?", arguments: [id.rawValue])
            let stored = StoredRow(row)
            return (stored.item, stored.bodyFile)
        }
        return synced ? try await queue.write(remove) : try await writeWithoutSync(remove)
    }

    /// Removes every item of a user.
    func removeAll(identity: String) async throws -> [(item: OutboxItem, bodyFile: String?)] {
        let column = Self.column(.user(identity))
        let removed: [(item: OutboxItem, bodyFile: String?)] = try await queue.write { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT \(Self.listed), bodyFile FROM item WHERE identity IS ? ORDER BY id", arguments: [column])
            try db.execute(sql: "DELETE FROM item WHERE identity IS ?", arguments: [column])
            return rows.map { row in
                let stored = StoredRow(row)
                return (stored.item, stored.bodyFile)
            }
        }
        // A signed-out user's writes leave the write-ahead log too, not only the database's pages.
        try await queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        return removed
    }

    /// The body files rows name (the others are left from a crash between a file and its row).
    func bodyFiles() throws -> Set<String> {
        try queue.read { db in
            Set(try DatabaseValue.fetchAll(db, sql: "SELECT bodyFile FROM item WHERE bodyFile IS NOT NULL").compactMap(String.fromDatabaseValue))
        }
    }

    /// A transaction committed without an `fsync`: a crash keeps it (the OS has the write-ahead
    /// log), a power cut may undo it, until the next synced commit. Only for writes whose loss
    /// sends an item again with its key: a removal after the server's answer, a failed attempt.
    private func writeWithoutSync<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            defer { try? db.execute(sql: "PRAGMA synchronous = FULL") }
            try db.execute(sql: "BEGIN IMMEDIATE")
            do {
                let result = try updates(db)
                try db.execute(sql: "COMMIT")
                return result
            } catch {
                try? db.execute(sql: "ROLLBACK")
                throw error
            }
        }
    }

    private static func fetchItem(_ id: OutboxItem.ID, _ db: Database) throws -> OutboxItem? {
        try Row.fetchOne(db, sql: "SELECT \(listed) FROM item WHERE id = ?", arguments: [id.rawValue]).map { StoredRow($0).item }
    }
}
