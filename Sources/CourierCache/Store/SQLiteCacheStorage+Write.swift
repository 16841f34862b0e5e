import Courier
import Foundation
import GRDB
import GRDBSQLite
import HTTPTypes

/// Writing, removing and evicting: each a transaction through GRDB's writer, so a crash never
/// leaves a variant without its whole body.
extension SQLiteCacheStorage {
    /// Stores a response (see ``CacheStorage/store(_:body:)``), then evicts the least recently
    /// used variants (stored, touched or revalidated longest ago) until the total fits
    /// ``maximumSize``. A file body is opened now and copied a chunk at a time, never whole in memory.
    /// A key or vary selection whose text holds a NUL byte is not stored (SQLite's texts end at one).
    public func store(_ response: VariantToStore, body: CacheBody) async throws -> StoreOutcome {
        guard !response.key.holdsNUL else { return StoreOutcome() }
        let limit = maximumSize
        if let bytes = body.bytes {
            return try writeNow("store") { db in
                try Self.replace(with: response, bodySize: bytes.count, limit: limit, db) { id in
                    try SQLiteCalls.run(
                        db.cachedStatement(sql: "INSERT INTO body (entryId, data) VALUES (?, ?)").sqliteStatement, Self.connection(of: db)
                    ) { try $0.integer(id).blob(bytes) }
                }
            }
        }
        guard let source = body.file else { return StoreOutcome() }
        // Over SQLite's largest value: stored as too large, which removes the older variant.
        let fileLimit = source.size <= Self.largestBody ? limit : 0
        return try await write("store") { db in
            try Self.replace(with: response, bodySize: source.size, limit: fileLimit, db) { id in
                try db.execute(sql: "INSERT INTO body (entryId, data) VALUES (?, zeroblob(?))", arguments: [id, source.size])
                try source.copy(intoBodyOf: id, db)
            }
        }
    }

    /// Replaces the variant of `response`'s key and vary selection with it (the body inserted by
    /// `insertBody` for the new row id), and evicts; too large for `limit`, only removes the
    /// variant. Runs in the caller's transaction. A vary selection holding a NUL byte changes
    /// nothing, as a key holding one (``CacheKey/holdsNUL``).
    ///
    /// The statements are GRDB's, prepared once per connection (every store runs them), bound and
    /// stepped through SQLite's C API: GRDB's conversion of each argument was a measurable part of a
    /// store beside SQLite's own work (`courier-bench micro --filter store`).
    private static func replace(
        with response: VariantToStore, bodySize: Int, limit: Int, _ db: Database, insertBody: (Int64) throws -> Void
    ) throws -> StoreOutcome {
        let handle = try connection(of: db)
        let key = response.key
        let varyKey = response.varySelection.canonicalKey
        guard !varyKey.holdsNUL else { return StoreOutcome() }
        try SQLiteCalls.run(
            db.cachedStatement(sql: "DELETE FROM entry WHERE partitionKey = ? AND url = ? AND method = ? AND varyKey = ?").sqliteStatement,
            handle
        ) { try $0.text(key.partition).text(key.url).text(key.method).text(varyKey) }
        let metaSize = CacheStorageSize.metadata(of: response)
        guard bodySize + metaSize <= limit else { return StoreOutcome() }
        let now = Date().timeIntervalSince1970
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO entry (method, url, partitionKey, varyKey, vary, status, headers, requestTime, responseTime,
                    bodySize, metaSize, storedAt, lastAccess, accessOrder)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(accessOrder), 0) + 1 FROM entry))
                """
        )
        try SQLiteCalls.run(insert.sqliteStatement, handle) {
            try $0.text(key.method).text(key.url).text(key.partition).text(varyKey).blob(VaryCoding.encode(response.varySelection))
                .integer(Int64(response.status)).blob(HeaderCoding.encode(response.headers))
                .real(response.requestTime.timeIntervalSince1970).real(response.responseTime.timeIntervalSince1970)
                .integer(Int64(bodySize)).integer(Int64(metaSize)).real(now).real(now)
        }
        let id = sqlite3_last_insert_rowid(handle)
        try insertBody(id)
        var outcome = try evict(db, limit: limit, keeping: id)
        outcome.stored = response.metadata(id: id, bodySize: bodySize, now: Date(timeIntervalSince1970: now))
        return outcome
    }

    /// Deletes least-recently-used variants (never `keeping`) until the total fits `limit`.
    ///
    /// A full cache evicts on nearly every store, so these statements are prepared once too: a
    /// delete prepared anew compiled its triggers and cascade each time (most of such a store's time).
    private static func evict(_ db: Database, limit: Int, keeping: Int64) throws -> StoreOutcome {
        let handle = try connection(of: db)
        // Kept by triggers (see ``migrator``): summing every row would cost a scan per write.
        let totals = try db.cachedStatement(sql: "SELECT bytes FROM totals").sqliteStatement
        defer { sqlite3_reset(totals) }
        var total = try SQLiteCalls.step(totals, handle) ? Int(sqlite3_column_int64(totals, 0)) : 0
        guard total > limit else { return StoreOutcome() }
        let before = total
        // Collected first, then deleted: a delete while the cursor reads the same table would move it.
        var victims: [Int64] = []
        let oldest = try db.cachedStatement(sql: "SELECT id, bodySize + metaSize FROM entry WHERE id != ? ORDER BY accessOrder, id")
            .sqliteStatement
        do {
            defer { sqlite3_reset(oldest) }
            sqlite3_bind_int64(oldest, 1, keeping)
            while total > limit, try SQLiteCalls.step(oldest, handle) {
                victims.append(sqlite3_column_int64(oldest, 0))
                total -= Int(sqlite3_column_int64(oldest, 1))
            }
        }
        let delete = try db.cachedStatement(sql: "DELETE FROM entry WHERE id = ?").sqliteStatement
        for victim in victims {
            try SQLiteCalls.run(delete, handle) { $0.integer(victim) }
        }
        return StoreOutcome(evictedCount: victims.count, evictedBytes: before - total)
    }

    public func updateHeaders(of entry: VariantMetadata, headers: HTTPFields, requestTime: Date, responseTime: Date) async throws -> Bool {
        guard !entry.key.holdsNUL else { return false }
        let metaSize = CacheStorageSize.metadata(of: entry, headers: headers)
        let arguments: StatementArguments = [
            HeaderCoding.encode(headers), requestTime.timeIntervalSince1970, responseTime.timeIntervalSince1970, metaSize,
            Date().timeIntervalSince1970, entry.id, entry.key.partition, entry.key.url, entry.key.method,
        ]
        return try writeNow("updateHeaders") { db in
            // Cached, as the store's statements: a revalidation runs it, and its trigger compiles with it.
            try db.cachedStatement(
                sql: """
                    UPDATE entry SET headers = ?, requestTime = ?, responseTime = ?, metaSize = ?, lastAccess = ?,
                        accessOrder = (SELECT COALESCE(MAX(accessOrder), 0) + 1 FROM entry)
                    WHERE id = ? AND partitionKey = ? AND url = ? AND method = ?
                    """
            ).execute(arguments: arguments)
            return db.changesCount > 0
        }
    }

    /// Marks a variant as used, unless its recorded use is younger than a minute:
    /// eviction orders variants by use to the minute, so a hit on one used (or stored) within the
    /// last minute costs no write at all. Failures are logged, never thrown.
    public func recordUse(of entry: VariantMetadata) async {
        guard Date().timeIntervalSince(entry.lastAccess) >= Self.useGranularity else { return }
        let arguments: StatementArguments = [Date().timeIntervalSince1970, entry.id]
        _ = try? writeNow("recordUse") { db in
            try db.cachedStatement(
                sql: "UPDATE entry SET lastAccess = ?, accessOrder = (SELECT COALESCE(MAX(accessOrder), 0) + 1 FROM entry) WHERE id = ?"
            ).execute(arguments: arguments)
        }
    }

    /// How recent a recorded use may be for a hit not to record another (see ``recordUse(of:)``).
    static let useGranularity: TimeInterval = 60

    public func remove(_ entry: VariantMetadata) async throws -> Bool {
        guard !entry.key.holdsNUL else { return false }
        // Matched on the key too: after a damaged file is replaced, ids start over.
        return try delete(
            "DELETE FROM entry WHERE id = ? AND partitionKey = ? AND url = ? AND method = ?",
            [entry.id, entry.key.partition, entry.key.url, entry.key.method]) > 0
    }

    /// Removes the variants in `scope`. For a partition or everything, the bytes leave the file
    /// too: SQLite overwrites what it deletes (`secure_delete`), and the write-ahead log, which
    /// still holds the old pages, is checkpointed and emptied.
    public func removeAll(_ scope: CacheScope) async throws -> Int {
        guard !scope.holdsNUL else { return 0 }  // nothing is stored under one (see `CacheKey.holdsNUL`)
        switch scope {
        case .url(let url, let partition?):
            return try delete("DELETE FROM entry WHERE partitionKey = ? AND url = ?", [partition, url])
        case .url(let url, nil):
            return try delete("DELETE FROM entry WHERE url = ?", [url])
        case .under(let prefix, let partition):
            // `CacheScope.url(_:isUnder:)` in one statement, without LIKE (a URL's `%` and `_` are its own).
            let (under, arguments): (String, StatementArguments) = prefix.hasSuffix("/")
                ? ("substr(url, 1, ?) = ?", [prefix.unicodeScalars.count, prefix])
                : ("(url = ? OR substr(url, 1, ?) IN (?, ?))", [prefix, prefix.unicodeScalars.count + 1, prefix + "?", prefix + "/"])
            guard let partition else { return try delete("DELETE FROM entry WHERE " + under, arguments) }
            return try delete("DELETE FROM entry WHERE partitionKey = ? AND " + under, [partition] + arguments)
        case .partition(let partition):
            let removed = try delete("DELETE FROM entry WHERE partitionKey = ?", [partition])
            try? await emptyLog()
            return removed
        case .everything:
            let removed = try delete("DELETE FROM entry", [])
            try? await emptyLog()
            return removed
        }
    }

    private func delete(_ sql: String, _ arguments: StatementArguments) throws -> Int {
        try writeNow("remove") { db in
            try db.execute(sql: sql, arguments: arguments)
            return db.changesCount
        }
    }

    /// Copies the write-ahead log into the database and truncates it to nothing; a failure (a reader
    /// in another process holding the log) is logged and counted like any other.
    private func emptyLog() async throws {
        try await access("checkpoint") { writer in
            try await writer.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        }
    }

    /// ``emptyLog()`` where no call can wait (closing): best effort.
    static func checkpoint(_ writer: any DatabaseWriter) {
        try? writer.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
    }

    /// The largest body SQLite holds in one value (its default `SQLITE_MAX_LENGTH`).
    static let largestBody = 1_000_000_000

    /// How much of a body one read or write moves.
    static let bodyChunkSize = 256 << 10
}

/// Errors of the store itself (database failures while running are GRDB `DatabaseError`s).
public enum CacheStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The database file can't be opened or created (a read-only folder, a full disk, a path under a file).
    case cannotOpen(path: String, reason: String)
    /// The store has no database (see ``SQLiteCacheStorage/openOrFallBack(fileURL:maximumSize:logger:)``).
    case unavailable

    /// What went wrong, with the file's path where there is one.
    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "The cache database at \(path) can't be opened: \(reason)"
        case .unavailable: "The cache store has no database"
        }
    }
}
