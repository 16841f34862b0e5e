import Foundation
import GRDBSQLite

/// SQLite's own floor for a store: an entry and its body inserted in one transaction by
/// statements prepared once, on a connection of its own to a file with the store's schema and
/// settings (WAL, `synchronous = NORMAL`, the totals triggers), through the C API alone.
final class SQLiteFloor {
    private let handle: OpaquePointer
    private let statements: [OpaquePointer]
    private var counter = 0

    /// A floor on `path`, a file a `SQLiteCacheStorage` created (so the schema is the store's).
    init(path: String) throws {
        var opened: OpaquePointer?
        guard sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let handle = opened else {
            sqlite3_close_v2(opened)
            throw BenchError("SQLite floor: can't open \(path)")
        }
        self.handle = handle
        let sql = [
            "PRAGMA synchronous = NORMAL", "PRAGMA foreign_keys = ON", "PRAGMA secure_delete = ON",
        ]
        for pragma in sql where sqlite3_exec(handle, pragma, nil, nil, nil) != SQLITE_OK {
            throw BenchError("SQLite floor: \(pragma) failed")
        }
        var prepared: [OpaquePointer] = []
        for text in [
            "BEGIN IMMEDIATE",
            """
            INSERT INTO entry (method, url, partitionKey, varyKey, vary, status, headers, requestTime, responseTime,
                bodySize, metaSize, storedAt, lastAccess, accessOrder)
            VALUES ('GET', ?, '', '', x'', 200, ?, 0, 0, ?, 100, 0, 0, (SELECT COALESCE(MAX(accessOrder), 0) + 1 FROM entry))
            """,
            "INSERT INTO body (entryId, data) VALUES (?, ?)",
            "COMMIT",
        ] {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v3(handle, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK, let statement else {
                throw BenchError("SQLite floor: can't prepare \(text): \(String(cString: sqlite3_errmsg(handle)))")
            }
            prepared.append(statement)
        }
        statements = prepared
    }

    deinit {
        statements.forEach { sqlite3_finalize($0) }
        sqlite3_close_v2(handle)
    }

    /// Inserts one entry with `headers` and `body` under a new URL, in one transaction.
    func insert(headers: Data, body: Data) throws {
        counter += 1
        let url = "https://bench.example/floor/\(counter)"
        let (begin, entry, bodyRow, commit) = (statements[0], statements[1], statements[2], statements[3])
        try run(begin)
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        sqlite3_bind_text(entry, 1, url, -1, transient)
        headers.withUnsafeBytes { _ = sqlite3_bind_blob(entry, 2, $0.baseAddress, Int32($0.count), transient) }
        sqlite3_bind_int64(entry, 3, Int64(body.count))
        try run(entry)
        sqlite3_bind_int64(bodyRow, 1, sqlite3_last_insert_rowid(handle))
        body.withUnsafeBytes { _ = sqlite3_bind_blob(bodyRow, 2, $0.baseAddress, Int32($0.count), transient) }
        try run(bodyRow)
        try run(commit)
    }

    private func run(_ statement: OpaquePointer) throws {
        defer { sqlite3_reset(statement) }
        guard sqlite3_step(statement) == SQLITE_DONE else {
            throw BenchError("SQLite floor: \(String(cString: sqlite3_errmsg(handle)))")
        }
    }
}
