import GRDB
import GRDBSQLite

/// Reads one stored body a chunk at a time: a read-only connection of its own, one read
/// transaction from the first chunk to the last (so every chunk comes from the same snapshot), and
/// one blob handle (which remembers where it is in the value's pages, so each chunk costs its own
/// bytes, not a walk from the start).
///
/// Not `Sendable`: ``StoredBodyChunks`` reads it under a lock, one chunk at a time
/// (`SQLITE_OPEN_NOMUTEX` relies on that). The snapshot is released at the last chunk, or when the
/// cursor is released unfinished.
final class BodyCursor {
    private var handle: OpaquePointer?
    private var blob: OpaquePointer?
    private var offset: Int
    private let end: Int

    /// Opens the body of row `entryID`, which must still be a variant of `key` (after a damaged
    /// file is replaced, ids start over); nil when it isn't, is shorter than `offsets`, or its
    /// bytes are not as many as recorded.
    init?(path: String, entryID: Int64, key: CacheKey, offsets: Range<Int>) throws {
        let handle = try SQLiteCalls.openReadOnly(path)
        self.handle = handle
        offset = offsets.lowerBound
        end = offsets.upperBound
        guard sqlite3_exec(handle, "BEGIN", nil, nil, nil) == SQLITE_OK,
              let size = try Self.bodySize(of: entryID, key: key, handle), offsets.upperBound <= size
        else {
            close()
            return nil
        }
        let code = sqlite3_blob_open(handle, "main", "body", "data", entryID, 0, &blob)
        guard code == SQLITE_OK else {
            let error = SQLiteCalls.error(code, handle)
            close()
            throw error
        }
        // A body of another length than recorded (a damaged or foreign file) is not served.
        guard Int(sqlite3_blob_bytes(blob)) == size else {
            close()
            return nil
        }
    }

    deinit { close() }

    /// The next chunk, or nil after the last (when the snapshot is released).
    func next() throws -> ArraySlice<UInt8>? {
        guard offset < end, let blob else {
            close()
            return nil
        }
        let count = min(SQLiteCacheStorage.bodyChunkSize, end - offset)
        var code = SQLITE_OK
        let chunk = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            code = sqlite3_blob_read(blob, buffer.baseAddress, Int32(count), Int32(offset))
            initialized = code == SQLITE_OK ? count : 0
        }
        guard code == SQLITE_OK else {
            let error = SQLiteCalls.error(code, handle)
            close()
            throw error
        }
        offset += count
        return chunk[...]
    }

    /// The body size of row `entryID` when it is a variant of `key` with a body; nil otherwise.
    private static func bodySize(of entryID: Int64, key: CacheKey, _ handle: OpaquePointer) throws -> Int? {
        let statement = try SQLiteCalls.prepare(
            """
            SELECT entry.bodySize FROM entry JOIN body ON body.entryId = entry.id
            WHERE entry.id = ? AND entry.partitionKey = ? AND entry.url = ? AND entry.method = ?
            """, on: handle, persistent: false)
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_int64(statement, 1, entryID)
        try SQLiteCalls.bind(key.partition, at: 2, of: statement, handle)
        try SQLiteCalls.bind(key.url, at: 3, of: statement, handle)
        try SQLiteCalls.bind(key.method, at: 4, of: statement, handle)
        return try SQLiteCalls.step(statement, handle) ? Int(sqlite3_column_int64(statement, 0)) : nil
    }

    private func close() {
        sqlite3_blob_close(blob)
        blob = nil
        // Closing the connection ends its read transaction.
        sqlite3_close_v2(handle)
        handle = nil
    }
}
