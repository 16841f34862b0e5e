import Courier
import Foundation
import GRDB
import OpenAPIRuntime

extension CacheStore {
    /// Every stored variant of `key` with its body when small, in one statement; rows that fail
    /// to decode (a damaged or foreign file) and rows without a body are skipped, never trapped on.
    ///
    /// The read goes through one of the pool's readers, which in WAL mode never waits for a writer
    /// (see `read(_:_:)`).
    public func variants(of key: CacheKey, inlineBodyLimit: Int) async throws -> [StoredVariant] {
        try read("lookup") { db in
            let rows = try Row.fetchCursor(
                db.cachedStatement(sql: Self.lookupSQL), arguments: [inlineBodyLimit, key.partition, key.url, key.method])
            var variants: [StoredVariant] = []
            while let row = try rows.next() {
                guard (row[9] as Bool?) == true, let metadata = try Self.metadata(from: row, key: key) else { continue }
                variants.append(StoredVariant(metadata: metadata, body: row[10]))
            }
            return variants
        }
    }

    /// The lookup: the variants of a key, whether each has its body, and the body when small.
    /// Parameters: the inline body limit, then the partition, URL and method.
    private static let lookupSQL = """
        SELECT entry.id, entry.vary, entry.status, entry.headers, entry.requestTime, entry.responseTime,
            entry.bodySize, entry.storedAt, entry.lastAccess,
            body.entryId IS NOT NULL, CASE WHEN entry.bodySize <= ? THEN body.data END
        FROM entry LEFT JOIN body ON body.entryId = entry.id
        WHERE entry.partitionKey = ? AND entry.url = ? AND entry.method = ? ORDER BY entry.id
        """

    public func entries(in partition: String?) async throws -> [CachedMetadata] {
        try read("entries") { db in
            let rows = try Row.fetchCursor(db.cachedStatement(sql: Self.entriesSQL), arguments: [partition])
            var entries: [CachedMetadata] = []
            while let row = try rows.next() {
                guard let partition: String = row[9], let url: String = row[10], let method: String = row[11],
                      let metadata = try Self.metadata(from: row, key: CacheKey(method: method, normalizedURL: url, partition: partition))
                else { continue }
                entries.append(metadata)
            }
            return entries
        }
    }

    /// The listing: every variant with a body, in one partition or (a NULL parameter) all; the
    /// columns of ``lookupSQL``'s first nine, then the key.
    private static let entriesSQL = """
        SELECT entry.id, entry.vary, entry.status, entry.headers, entry.requestTime, entry.responseTime,
            entry.bodySize, entry.storedAt, entry.lastAccess, entry.partitionKey, entry.url, entry.method
        FROM entry WHERE EXISTS (SELECT 1 FROM body WHERE body.entryId = entry.id)
            AND (?1 IS NULL OR entry.partitionKey = ?1)
        ORDER BY entry.id
        """

    /// Decodes a row of ``lookupSQL``; nil when it doesn't decode (the file comes from outside).
    private static func metadata(from row: Row, key: CacheKey) throws -> CachedMetadata? {
        guard let id: Int64 = row[0],
              let vary = try row.withUnsafeData(atIndex: 1, { $0.flatMap { $0.withUnsafeBytes(VaryCoding.decode) } }),
              let status: Int = row[2], (100...999).contains(status),
              let headers = try row.withUnsafeData(atIndex: 3, { $0.flatMap { $0.withUnsafeBytes(HeaderCoding.decode) } }),
              let requestTime: Double = row[4], let responseTime: Double = row[5],
              let bodySize: Int = row[6], bodySize >= 0,
              let storedAt: Double = row[7], let lastAccess: Double = row[8]
        else { return nil }
        return CachedMetadata(
            id: id, key: key, varySelection: vary, status: status, headers: headers,
            requestTime: Date(timeIntervalSince1970: requestTime), responseTime: Date(timeIntervalSince1970: responseTime),
            bodySize: bodySize, storedAt: Date(timeIntervalSince1970: storedAt), lastAccess: Date(timeIntervalSince1970: lastAccess))
    }

    /// The whole body of a variant, in one read; nil when it has been replaced or removed.
    func wholeBody(of entry: CachedMetadata) throws -> Data? {
        try read("body") { db in
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
    }

    /// The body at `offsets` as a stream read a chunk at a time, through SQLite's incremental blob
    /// I/O (which GRDB doesn't offer), from one snapshot of the file: a read transaction on a
    /// connection of its own, held until the stream ends or is released, so a write meanwhile
    /// can't change the bytes it serves. A store in memory serves it from memory.
    public func body(of entry: CachedMetadata, offsets: Range<Int>) async throws -> HTTPBody? {
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
            return CacheTotals(entryCount: row?[0] ?? 0, totalBytes: row?[1] ?? 0)
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
