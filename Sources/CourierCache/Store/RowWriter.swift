import Foundation
import GRDB
import GRDBSQLite

/// Writes variants' rows inside the caller's write transaction, binding and stepping GRDB's
/// cached statements through SQLite's C API.
///
/// The writer's CPU competes with the app's own on a small device: a row this way costs a bind
/// and a step per statement, without GRDB's argument arrays and per-statement bookkeeping. The
/// statements stay in the connection's cache (prepared once, finalized when it closes), and this
/// value holds them while it is used: on the writer's thread only, within one transaction.
struct RowWriter {
    private let handle: OpaquePointer
    private let statements: (deleteVariant: Statement, insertEntry: Statement, insertBody: Statement)
    private var deleteVariant: OpaquePointer { statements.deleteVariant.sqliteStatement }
    private var insertEntry: OpaquePointer { statements.insertEntry.sqliteStatement }
    private var insertBody: OpaquePointer { statements.insertBody.sqliteStatement }

    /// Looks up (or prepares) the statements on `db`'s connection; throws a `DatabaseError` when one can't be.
    init(_ db: Database) throws {
        guard let handle = db.sqliteConnection else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "closed") }
        self.handle = handle
        statements = (
            try db.cachedStatement(sql: Self.deleteSQL), try db.cachedStatement(sql: Self.insertEntrySQL),
            try db.cachedStatement(sql: Self.insertBodySQL)
        )
    }

    /// Deletes the variant of `key` with vary selection `varyKey` (its body goes with it).
    func delete(_ key: CacheKey, varyKey: String) throws {
        try bindKey(key, varyKey: varyKey, of: deleteVariant)
        try run(deleteVariant)
    }

    /// Replaces the variant of `metadata`'s key and vary selection with a row for `metadata`,
    /// as the most recently used; returns its row id. The caller inserts its body.
    ///
    /// The row is inserted first, and only when the key's unique index already holds the variant
    /// is that one deleted and the insert run again: most stored responses are new, and a delete
    /// that finds nothing still costs an index search per row.
    func replace(with metadata: CachedMetadata, varyData: Data, headerData: Data, metaSize: Int) throws -> Int64 {
        let statement = insertEntry
        let varyKey = metadata.varySelection.canonicalKey
        try bindKey(metadata.key, varyKey: varyKey, of: statement)
        try SQLiteCalls.bind(varyData, at: 5, of: statement, handle)
        sqlite3_bind_int64(statement, 6, Int64(metadata.status))
        try SQLiteCalls.bind(headerData, at: 7, of: statement, handle)
        sqlite3_bind_double(statement, 8, metadata.requestTime.timeIntervalSince1970)
        sqlite3_bind_double(statement, 9, metadata.responseTime.timeIntervalSince1970)
        sqlite3_bind_int64(statement, 10, Int64(metadata.bodySize))
        sqlite3_bind_int64(statement, 11, Int64(metaSize))
        sqlite3_bind_double(statement, 12, metadata.storedAt.timeIntervalSince1970)
        sqlite3_bind_double(statement, 13, metadata.lastAccess.timeIntervalSince1970)
        do {
            try run(statement)
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            // A failed statement changes nothing and keeps its bindings: delete, then insert again.
            try delete(metadata.key, varyKey: varyKey)
            try run(statement)
        }
        return sqlite3_last_insert_rowid(handle)
    }

    /// Inserts `body` as the body of row `id`.
    func insertBody(_ body: Data, of id: Int64) throws {
        sqlite3_bind_int64(insertBody, 1, id)
        try SQLiteCalls.bind(body, at: 2, of: insertBody, handle)
        try run(insertBody)
    }

    /// Parameters 1 to 4 of both the delete and the insert: partition, URL, method, vary selection.
    private func bindKey(_ key: CacheKey, varyKey: String, of statement: OpaquePointer) throws {
        try SQLiteCalls.bind(key.partition, at: 1, of: statement, handle)
        try SQLiteCalls.bind(key.url, at: 2, of: statement, handle)
        try SQLiteCalls.bind(key.method, at: 3, of: statement, handle)
        try SQLiteCalls.bind(varyKey, at: 4, of: statement, handle)
    }

    /// Steps a statement that returns no rows, then resets it (also after a failure).
    private func run(_ statement: OpaquePointer) throws {
        defer { sqlite3_reset(statement) }
        let code = sqlite3_step(statement)
        guard code == SQLITE_DONE else { throw SQLiteCalls.error(code, handle) }
    }

    private static let deleteSQL = "DELETE FROM entry WHERE partitionKey = ?1 AND url = ?2 AND method = ?3 AND varyKey = ?4"

    private static let insertEntrySQL = """
        INSERT INTO entry (partitionKey, url, method, varyKey, vary, status, headers, requestTime, responseTime,
                           bodySize, metaSize, storedAt, lastAccess, accessOrder)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, (SELECT COALESCE(MAX(accessOrder), 0) + 1 FROM entry))
        """

    private static let insertBodySQL = "INSERT INTO body (entryId, data) VALUES (?1, ?2)"
}
