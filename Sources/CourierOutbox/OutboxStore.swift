import Courier
import Foundation
import GRDB

/// The outbox's SQLite file: one row per item, committed with `synchronous = FULL` so that a write
/// `enqueue` returned for survives a power cut, not only a crash. A removal after the server's
/// answer and a failed attempt's count are committed without `fsync`: a power cut that undoes one
/// only sends the item again, with its key.
///
/// Small bodies live in the row; a file's or a form's body in a file of the outbox's `bodies`
/// folder, written and synced before the row that names it is committed.
struct OutboxStore: Sendable {
    /// An item's row: what is listed, and what is sent.
    struct Record: Sendable {
        var item: OutboxItem
        var request: KeptRequest
        var identity: CallIdentity?
        var body: Data?
        var bodyFile: String?
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
        return migrator
    }()

    /// Adds an item unless the outbox is full; its id and the time it was committed.
    func insert(
        group: String, identity: CallIdentity?, request: KeptRequest, body: Data?, bodyFile: String?, size: Int64, limits: Outbox.Limits
    ) throws -> OutboxItem {
        let encoded = try JSONEncoder().encode(request)
        let total = size + Int64(encoded.count)
        let now = Date()
        return try queue.write { db -> OutboxItem in
            let row = try Row.fetchOne(db, sql: "SELECT COUNT(*) AS n, COALESCE(SUM(size), 0) AS bytes FROM item")
            let count: Int = row?["n"] ?? 0
            let bytes: Int64 = row?["bytes"] ?? 0
            guard count < limits.maximumItems, bytes + total <= limits.maximumBytes else { throw OutboxError.full(limits) }
            try db.execute(
                sql: """
                    INSERT INTO item (grp, identity, request, body, bodyFile, size, state, attempts, enqueuedAt)
                    VALUES (?, ?, ?, ?, ?, ?, 'waiting', 0, ?)
                    """,
                arguments: [group, Self.column(identity), encoded, body, bodyFile, total, now.timeIntervalSince1970])
            return OutboxItem(
                id: OutboxItem.ID(rawValue: db.lastInsertedRowID), group: group, operationName: request.operationName,
                method: request.method, path: request.target, identity: Self.name(identity), state: .waiting, attempts: 0,
                lastFailure: nil, enqueuedAt: Date(timeIntervalSince1970: now.timeIntervalSince1970), size: total)
        }
    }

    /// Every item, oldest first.
    func items() throws -> [OutboxItem] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT id, grp, identity, request, size, state, attempts, failure, enqueuedAt FROM item ORDER BY id")
                .map(Self.item(from:))
        }
    }

    /// The first item of each group, oldest first: what may be sent next.
    func heads() throws -> [OutboxItem] {
        try queue.read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, grp, identity, request, size, state, attempts, failure, enqueuedAt FROM item
                WHERE id IN (SELECT MIN(id) FROM item GROUP BY grp) ORDER BY id
                """).map(Self.item(from:))
        }
    }

    /// The oldest item of a group, with its request and body, to send it.
    func head(of group: String) throws -> Record? {
        try queue.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM item WHERE grp = ? ORDER BY id LIMIT 1", arguments: [group]).map(Self.record(from:))
        }
    }

    /// Records a failed attempt; `park` stops the item until the app retries it.
    func recordFailure(_ id: OutboxItem.ID, _ failure: OutboxItem.Failure, park: Bool) throws -> OutboxItem? {
        let encoded = try JSONEncoder().encode(failure)
        return try writeWithoutSync { db in
            try db.execute(
                sql: "UPDATE item SET attempts = attempts + 1, failure = ?, state = ? WHERE id = ?",
                arguments: [encoded, park ? "parked" : "waiting", id.rawValue])
            return try Self.fetchItem(id, db)
        }
    }

    /// Makes a parked item wait to be sent again.
    func unpark(_ id: OutboxItem.ID) throws -> OutboxItem? {
        try queue.write { db in
            try db.execute(sql: "UPDATE item SET state = 'waiting' WHERE id = ?", arguments: [id.rawValue])
            return try Self.fetchItem(id, db)
        }
    }

    /// Removes an item; the name of its body's file, for the caller to delete once the row is gone.
    /// `synced` for the app's own removal (a discard must survive a power cut: the item would be
    /// sent); not after the server's answer, whose loss only sends the item again with its key.
    func remove(_ id: OutboxItem.ID, synced: Bool) throws -> (item: OutboxItem, bodyFile: String?)? {
        let remove = { (db: Database) throws -> (item: OutboxItem, bodyFile: String?)? in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM item WHERE id = ?", arguments: [id.rawValue]) else { return nil }
            try db.execute(sql: "DELETE FROM item WHERE id = ?", arguments: [id.rawValue])
            return (try Self.item(from: row), row["bodyFile"])
        }
        return synced ? try queue.write(remove) : try writeWithoutSync(remove)
    }

    /// Removes every item of a user.
    func removeAll(identity: String) throws -> [(item: OutboxItem, bodyFile: String?)] {
        let removed: [(item: OutboxItem, bodyFile: String?)] = try queue.write { db in
            let column = Self.column(.user(identity))
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM item WHERE identity IS ? ORDER BY id", arguments: [column])
            try db.execute(sql: "DELETE FROM item WHERE identity IS ?", arguments: [column])
            return try rows.map { (try Self.item(from: $0), $0["bodyFile"] as String?) }
        }
        // A signed-out user's writes leave the write-ahead log too, not only the database's pages.
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        return removed
    }

    /// The body files rows name (the others are left from a crash between a file and its row).
    func bodyFiles() throws -> Set<String> {
        try queue.read { db in Set(try String.fetchAll(db, sql: "SELECT bodyFile FROM item WHERE bodyFile IS NOT NULL")) }
    }

    /// A transaction committed without an `fsync`: a crash keeps it (the OS has the write-ahead
    /// log), a power cut may undo it, until the next synced commit. Only for writes whose loss
    /// sends an item again with its key: a removal after the server's answer, a failed attempt.
    private func writeWithoutSync<T>(_ updates: (Database) throws -> T) throws -> T {
        try queue.writeWithoutTransaction { db in
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

    // MARK: Columns

    /// `user:NAME`, `anonymous`, or NULL for a call that sends no credentials.
    static func column(_ identity: CallIdentity?) -> String? {
        switch identity {
        case .user(let name)?: "user:" + name
        case .anonymous?: "anonymous"
        case .unknown?, nil: nil
        }
    }

    static func identity(_ column: String?) -> CallIdentity? {
        guard let column else { return nil }
        if column.hasPrefix("user:") { return .user(String(column.dropFirst(5))) }
        return .anonymous
    }

    private static func name(_ identity: CallIdentity?) -> String? {
        if case .user(let name)? = identity { name } else { nil }
    }

    private static func fetchItem(_ id: OutboxItem.ID, _ db: Database) throws -> OutboxItem? {
        try Row.fetchOne(
            db, sql: "SELECT id, grp, identity, request, size, state, attempts, failure, enqueuedAt FROM item WHERE id = ?",
            arguments: [id.rawValue]
        ).map(item(from:))
    }

    private static func record(from row: Row) throws -> Record {
        let request = try JSONDecoder().decode(KeptRequest.self, from: row["request"] as Data)
        return Record(
            item: try item(from: row, request: request), request: request, identity: identity(row["identity"]), body: row["body"],
            bodyFile: row["bodyFile"])
    }

    private static func item(from row: Row) throws -> OutboxItem {
        try item(from: row, request: try JSONDecoder().decode(KeptRequest.self, from: row["request"] as Data))
    }

    private static func item(from row: Row, request: KeptRequest) throws -> OutboxItem {
        let failure = try (row["failure"] as Data?).map { try JSONDecoder().decode(OutboxItem.Failure.self, from: $0) }
        return OutboxItem(
            id: OutboxItem.ID(rawValue: row["id"]), group: row["grp"], operationName: request.operationName, method: request.method,
            path: request.target, identity: name(identity(row["identity"])), state: OutboxItem.State(rawValue: row["state"]) ?? .parked,
            attempts: row["attempts"], lastFailure: failure, enqueuedAt: Date(timeIntervalSince1970: row["enqueuedAt"]), size: row["size"])
    }
}
