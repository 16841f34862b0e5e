import Courier
import GRDB
import GRDBSQLite

/// The lookups' own read-only connections to the store's file, each with the lookup statement
/// prepared once: a cache hit's read costs one statement on the calling thread, without GRDB's
/// pool checkout, queue hop and schema check (most of the read's time in a profile of a hit).
///
/// A connection is taken from the idle list for one lookup and given back after it, so
/// concurrent lookups each have one (as many as run at once; at most ``maximumIdle`` are kept).
/// In WAL mode a reader never waits for the writer. The readers belong to one open file: when a
/// damaged file is replaced or the store is closed, they are closed with it.
final class LookupReaders: Sendable {
    /// How many idle connections are kept between lookups.
    static let maximumIdle = 4

    private let path: String
    /// The idle connections; nil once closed (a lookup then opens none).
    private let idle: Locked<[LookupConnection]?> = Locked([])

    init(path: String) {
        self.path = path
    }

    /// The variants of `key`, as ``SQLiteCacheStorage/variants(of:inlineBodyLimit:)`` returns them.
    func variants(of key: CacheKey, inlineBodyLimit: Int) throws -> [StoredVariant] {
        let taken = idle.withLock { $0?.popLast() }
        let connection = try taken ?? LookupConnection(path: path)
        // A connection that failed is not given back: it may be on a damaged or replaced file.
        let variants = try connection.variants(of: key, inlineBodyLimit: inlineBodyLimit)
        idle.withLock { connections in
            if let kept = connections?.count, kept < Self.maximumIdle { connections?.append(connection) }
        }
        return variants
    }

    /// Closes the idle connections; a lookup running now closes its own when it ends.
    func close() {
        idle.withLock { $0 = nil }
    }
}

/// One read-only connection and its prepared lookup: not `Sendable`, since ``LookupReaders`` hands
/// it to one lookup at a time, under its lock (`SQLITE_OPEN_NOMUTEX` relies on that).
final class LookupConnection {
    private let handle: OpaquePointer
    private let statement: OpaquePointer

    init(path: String) throws {
        handle = try SQLiteCalls.openReadOnly(path)
        do {
            // As the pool's connections (see `SQLiteCacheStorage.configuration()`): the index stays in memory.
            try SQLiteCalls.execute("PRAGMA cache_size = -8192", on: handle)
            statement = try SQLiteCalls.prepare(VariantRows.lookupSQL, on: handle, persistent: true)
        } catch {
            sqlite3_close_v2(handle)
            throw error
        }
    }

    deinit {
        sqlite3_finalize(statement)
        sqlite3_close_v2(handle)
    }

    func variants(of key: CacheKey, inlineBodyLimit: Int) throws -> [StoredVariant] {
        try VariantRows.variants(of: key, inlineBodyLimit: inlineBodyLimit, statement: statement, handle)
    }
}
