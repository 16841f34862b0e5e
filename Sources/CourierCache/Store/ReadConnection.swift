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
            let error = SQLiteCalls.error(prepare, handle)
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
            let error = SQLiteCalls.error(code, opened)
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
        try SQLiteCalls.bind(key.partition, at: 2, of: lookup, handle)
        try SQLiteCalls.bind(key.url, at: 3, of: lookup, handle)
        try SQLiteCalls.bind(key.method, at: 4, of: lookup, handle)
        var variants: [CacheStore.StoredVariant] = []
        while true {
            let code = sqlite3_step(lookup)
            if code == SQLITE_DONE { return variants }
            guard code == SQLITE_ROW else { throw SQLiteCalls.error(code, handle) }
            if let variant = CacheStore.storedVariant(from: SQLiteRow(statement: lookup), key: key) { variants.append(variant) }
        }
    }
}
