import Courier
import Foundation
import GRDB
import GRDBSQLite
import OpenAPIRuntime

extension SQLiteCacheStorage {
    /// Every stored variant of `key` with its body when small, in one statement; rows that fail
    /// to decode (a damaged or foreign file) and rows without a body are skipped, never trapped on.
    ///
    /// The read runs on the calling thread, on a read-only connection kept for lookups with the
    /// statement prepared, which in WAL mode never waits for a writer; a read that finds the file
    /// damaged is read again from the fresh file that replaced it.
    public func variants(of key: CacheKey, inlineBodyLimit: Int) async throws -> [StoredVariant] {
        try readOpen("lookup") { open in
            if let lookups = open.lookups { return try lookups.variants(of: key, inlineBodyLimit: inlineBodyLimit) }
            return try open.writer.unsafeRead { db in
                let handle = try Self.connection(of: db)
                let statement = try SQLiteCalls.prepare(VariantRows.lookupSQL, on: handle, persistent: false)
                defer { sqlite3_finalize(statement) }
                return try VariantRows.variants(of: key, inlineBodyLimit: inlineBodyLimit, statement: statement, handle)
            }
        }
    }

    public func variants(in partition: String?) async throws -> [VariantMetadata] {
        try read("variants") { db in try VariantRows.variants(in: partition, try Self.connection(of: db)) }
    }

    /// The SQLite connection under a GRDB one, which is open while GRDB hands it out.
    static func connection(of db: Database) throws -> OpaquePointer {
        guard let handle = db.sqliteConnection else { throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "closed connection") }
        return handle
    }

    /// The whole body of a variant, in one read; nil when it has been replaced or removed.
    func wholeBody(of entry: VariantMetadata) throws -> Data? {
        guard !entry.key.holdsNUL else { return nil }
        let data = try read("body") { db in
            // Matched on the key too, not the id alone: after a damaged file is replaced, ids start
            // over, and an id read before must not reach another URL's or another user's body.
            try Data.fetchOne(
                db,
                sql: """
                    SELECT body.data FROM body JOIN entry ON entry.id = body.entryId
                    WHERE body.entryId = ? AND entry.url = ? AND entry.partitionKey = ? AND entry.method = ?
                    """,
                arguments: [entry.id, entry.key.url, entry.key.partition, entry.key.method])
        }
        // A body of another length than recorded (a damaged or foreign file) is not served.
        return data?.count == entry.bodySize ? data : nil
    }

    /// The body at `offsets` as a stream read a chunk at a time, through SQLite's incremental blob
    /// I/O (which GRDB doesn't offer), from one snapshot of the file: a read transaction on a
    /// connection of its own, held until the stream ends or is released, so a write meanwhile
    /// can't change the bytes it serves. A store in memory serves it from memory.
    public func body(of entry: VariantMetadata, offsets: Range<Int>) async throws -> HTTPBody? {
        guard let fileURL else { return try wholeBody(of: entry)?.body(at: offsets) }
        // Failures are logged, counted and a damaged file replaced, as for every other read.
        let opened = try accessNow("streamedBody") { _ in
            try BodyCursor(path: fileURL.path, entryID: entry.id, key: entry.key, offsets: offsets)
        }
        guard let cursor = opened else { return nil }
        return HTTPBody(StoredBodyChunks(cursor: Locked(cursor)), length: .known(Int64(offsets.count)), iterationBehavior: .single)
    }

    public func totals() async throws -> CacheTotals {
        // Kept by triggers (see ``migrator``): summing every row would cost a scan.
        try read("statistics") { db in
            let row = try Row.fetchOne(db, sql: "SELECT entries, bytes FROM totals")
            return CacheTotals(count: row?[0] ?? 0, totalBytes: row?[1] ?? 0)
        }
    }
}

/// A stored body's chunks, read by its one iterator from a ``BodyCursor``.
struct StoredBodyChunks: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    /// Locked: a sequence is `Sendable`; only its one iterator (`.single`) reads, a chunk at a time.
    let cursor: Locked<BodyCursor>

    struct AsyncIterator: AsyncIteratorProtocol {
        let cursor: Locked<BodyCursor>

        mutating func next() async throws -> ArraySlice<UInt8>? {
            try Task.checkCancellation()
            return try cursor.withLock { try $0.next() }
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(cursor: cursor) }
}
