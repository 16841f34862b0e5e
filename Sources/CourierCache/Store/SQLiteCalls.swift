import Foundation
import GRDB
import GRDBSQLite

/// What the store's own connections and statements share when they call SQLite's C API directly.
enum SQLiteCalls {
    /// Binds the exact UTF-8 bytes of `text` (copied by SQLite), NUL bytes included, to parameter
    /// `index` of `statement` on connection `handle`.
    static func bind(_ text: String, at index: Int32, of statement: OpaquePointer, _ handle: OpaquePointer) throws {
        var text = text
        let code = text.withUTF8 { bytes in
            // Empty text, not NULL (which a nil pointer would bind).
            guard !bytes.isEmpty else { return sqlite3_bind_text(statement, index, "", 0, transient) }
            return bytes.withMemoryRebound(to: CChar.self) {
                sqlite3_bind_text(statement, index, $0.baseAddress, Int32($0.count), transient)
            }
        }
        guard code == SQLITE_OK else { throw error(code, handle) }
    }

    /// Binds `bytes` (copied by SQLite) as a BLOB to parameter `index`; empty bytes bind an empty
    /// BLOB, not NULL.
    static func bind(_ bytes: Data, at index: Int32, of statement: OpaquePointer, _ handle: OpaquePointer) throws {
        let code = bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress, !buffer.isEmpty else { return sqlite3_bind_zeroblob(statement, index, 0) }
            return sqlite3_bind_blob64(statement, index, base, sqlite3_uint64(buffer.count), transient)
        }
        guard code == SQLITE_OK else { throw error(code, handle) }
    }

    /// A read-only connection to `path`, used by one thread at a time, waiting for locks as the
    /// store's other connections do.
    static func openReadOnly(_ path: String) throws -> OpaquePointer {
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(path, &opened, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let handle = opened else {
            let error = error(code, opened)
            sqlite3_close_v2(opened)
            throw error
        }
        // As the store's other connections (see `SQLiteCacheStorage.configuration()`).
        sqlite3_busy_timeout(handle, 5000)
        return handle
    }

    /// Runs `sql`, which returns no rows.
    static func execute(_ sql: String, on handle: OpaquePointer) throws {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code, handle) }
    }

    /// `sql` prepared on `handle`; `persistent` when it is kept for many runs (SQLite then keeps
    /// it out of its lookaside memory). The caller finalizes it.
    static func prepare(_ sql: String, on handle: OpaquePointer, persistent: Bool) throws -> OpaquePointer {
        var prepared: OpaquePointer?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let code = sqlite3_prepare_v3(handle, sql, -1, flags, &prepared, nil)
        guard code == SQLITE_OK, let statement = prepared else {
            sqlite3_finalize(prepared)
            throw error(code, handle)
        }
        return statement
    }

    /// Steps `statement`: true at a row, false when done.
    static func step(_ statement: OpaquePointer, _ handle: OpaquePointer) throws -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: true
        case SQLITE_DONE: false
        case let failure: throw error(failure, handle)
        }
    }

    /// Binds `statement`'s parameters in order (`bind` chains them, `try $0.text(a).integer(b)`),
    /// steps it to its end, then resets it and clears its bindings (a bound body is not kept alive
    /// by a statement kept for the next run).
    static func run(_ statement: OpaquePointer, _ handle: OpaquePointer, binding bind: (SQLiteParameters) throws -> Void) throws {
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        try bind(SQLiteParameters(statement: statement, handle: handle, index: 1))
        while try step(statement, handle) {}
    }

    /// `SQLITE_TRANSIENT` (a C macro Swift doesn't import): SQLite copies the bound bytes.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// The connection's error as GRDB reports it, so the store tells damage from a busy file alike.
    static func error(_ code: Int32, _ handle: OpaquePointer?) -> DatabaseError {
        guard let handle else { return DatabaseError(resultCode: ResultCode(rawValue: code)) }
        // The extended code (e.g. `SQLITE_READONLY_DBMOVED`) when it belongs to this error.
        let extended = sqlite3_extended_errcode(handle)
        return DatabaseError(
            resultCode: ResultCode(rawValue: (extended & 0xFF) == (code & 0xFF) ? extended : code),
            message: String(cString: sqlite3_errmsg(handle)))
    }
}

/// A statement's parameters from `index` on, each bound through the C API by a call that returns
/// the parameters after it; nothing allocated, unlike an array of values.
struct SQLiteParameters {
    let statement: OpaquePointer
    let handle: OpaquePointer
    let index: Int32

    @discardableResult
    func text(_ value: String) throws -> SQLiteParameters {
        try SQLiteCalls.bind(value, at: index, of: statement, handle)
        return next
    }

    @discardableResult
    func blob(_ value: Data) throws -> SQLiteParameters {
        try SQLiteCalls.bind(value, at: index, of: statement, handle)
        return next
    }

    @discardableResult
    func integer(_ value: Int64) -> SQLiteParameters {
        sqlite3_bind_int64(statement, index, value)
        return next
    }

    @discardableResult
    func real(_ value: Double) -> SQLiteParameters {
        sqlite3_bind_double(statement, index, value)
        return next
    }

    private var next: SQLiteParameters { SQLiteParameters(statement: statement, handle: handle, index: index + 1) }
}
