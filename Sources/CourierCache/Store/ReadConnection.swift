import GRDB
import GRDBSQLite

/// A read-only SQLite connection to the store's file with the lookup statement kept prepared, so a
/// hit costs one bind-and-step, without GRDB's pool, queue hop, transaction and schema check.
///
/// Each lookup runs in the implicit read transaction of its one statement: in WAL mode it sees the
/// last commit and never waits for the writer. Not `Sendable`: ``StoreReader`` lends it to one
/// thread at a time (`SQLITE_OPEN_NOMUTEX` relies on that).
final class ReadConnection {
    private let handle: OpaquePointer
    private let lookup: OpaquePointer

    /// Opens `path` read-only and prepares the lookup; throws a `DatabaseError` when either fails.
    init(path: String) throws {
        let handle = try Self.open(path)
        sqlite3_exec(handle, "PRAGMA cache_size = -8192", nil, nil, nil)
        var prepared: OpaquePointer?
        let prepare = sqlite3_prepare_v3(
            handle, CacheStore.lookupSQL, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
        guard prepare == SQLITE_OK, let lookup = prepared else {
            let error = Self.error(prepare, handle)
            sqlite3_finalize(prepared)
            sqlite3_close_v2(handle)
            throw error
        }
        self.handle = handle
        self.lookup = lookup
    }

    /// A read-only connection to `path`, waiting for locks as the store's other connections do.
    static func open(_ path: String) throws -> OpaquePointer {
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(path, &opened, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
        guard code == SQLITE_OK, let handle = opened else {
            let error = Self.error(code, opened)
            sqlite3_close_v2(opened)
            throw error
        }
        // As the store's other connections (see `CacheStore.configuration()`).
        sqlite3_busy_timeout(handle, 5000)
        return handle
    }

    deinit {
        sqlite3_finalize(lookup)
        sqlite3_close_v2(handle)
    }

    /// The variants of `key` with their bodies up to `inlineBodyLimit` bytes, as
    /// ``CacheStore/variantsWithBodies(of:inlineBodyLimit:_:)`` reads them.
    func variants(of key: CacheKey, inlineBodyLimit: Int) throws -> [CacheStore.StoredVariant] {
        // Resetting ends the read transaction, also after an error: a reader left open would keep
        // the writer from checkpointing.
        defer {
            sqlite3_reset(lookup)
            sqlite3_clear_bindings(lookup)
        }
        sqlite3_bind_int64(lookup, 1, Int64(inlineBodyLimit))
        try Self.bind(key.partition, at: 2, of: lookup, handle)
        try Self.bind(key.url, at: 3, of: lookup, handle)
        try Self.bind(key.method, at: 4, of: lookup, handle)
        var variants: [CacheStore.StoredVariant] = []
        while true {
            let code = sqlite3_step(lookup)
            if code == SQLITE_DONE { return variants }
            guard code == SQLITE_ROW else { throw Self.error(code, handle) }
            if let variant = CacheStore.storedVariant(from: SQLiteRow(statement: lookup), key: key) { variants.append(variant) }
        }
    }

    /// Binds the exact UTF-8 bytes of `text` (copied by SQLite), NUL bytes included, to parameter
    /// `index` of `statement` on connection `handle`.
    static func bind(_ text: String, at index: Int32, of statement: OpaquePointer, _ handle: OpaquePointer) throws {
        var text = text
        let code = text.withUTF8 { bytes in
            // Empty text, not NULL (which a nil pointer would bind).
            guard !bytes.isEmpty else { return sqlite3_bind_text(statement, index, "", 0, Self.transient) }
            return bytes.withMemoryRebound(to: CChar.self) {
                sqlite3_bind_text(statement, index, $0.baseAddress, Int32($0.count), Self.transient)
            }
        }
        guard code == SQLITE_OK else { throw Self.error(code, handle) }
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
