import Courier
import Foundation
import GRDBSQLite

/// The store's two reads of variant metadata, the lookup and the listing, and the one decoder of
/// their rows, over SQLite's C API: the lookup runs on ``LookupReaders``' connections, and both
/// on a GRDB connection where the store has no file of its own (in memory).
///
/// A row that does not decode (a damaged or foreign file) is skipped, never trapped on.
enum VariantRows {
    /// The lookup: the variants of a key, whether each has its body, and the body when small.
    /// Parameters: the inline body limit, then the partition, URL and method.
    static let lookupSQL = """
        SELECT entry.id, entry.vary, entry.status, entry.headers, entry.requestTime, entry.responseTime,
            entry.bodySize, entry.storedAt, entry.lastAccess,
            body.entryId IS NOT NULL, CASE WHEN entry.bodySize <= ? THEN body.data END
        FROM entry LEFT JOIN body ON body.entryId = entry.id
        WHERE entry.partitionKey = ? AND entry.url = ? AND entry.method = ? ORDER BY entry.id
        """

    /// The listing: every variant with a body, in one partition or (a NULL parameter) all; the
    /// columns of ``lookupSQL``'s first nine, then the key.
    static let entriesSQL = """
        SELECT entry.id, entry.vary, entry.status, entry.headers, entry.requestTime, entry.responseTime,
            entry.bodySize, entry.storedAt, entry.lastAccess, entry.partitionKey, entry.url, entry.method
        FROM entry WHERE EXISTS (SELECT 1 FROM body WHERE body.entryId = entry.id)
            AND (?1 IS NULL OR entry.partitionKey = ?1)
        ORDER BY entry.id
        """

    /// Runs ``lookupSQL`` on its prepared `statement`, which is reset for the next lookup after.
    static func variants(
        of key: CacheKey, inlineBodyLimit: Int, statement: OpaquePointer, _ handle: OpaquePointer
    ) throws -> [StoredVariant] {
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        sqlite3_bind_int64(statement, 1, Int64(inlineBodyLimit))
        try SQLiteCalls.bind(key.partition, at: 2, of: statement, handle)
        try SQLiteCalls.bind(key.url, at: 3, of: statement, handle)
        try SQLiteCalls.bind(key.method, at: 4, of: statement, handle)
        var variants: [StoredVariant] = []
        while try SQLiteCalls.step(statement, handle) {
            guard sqlite3_column_int64(statement, 9) == 1, let metadata = metadata(statement, key: key) else { continue }
            let body = blob(statement, 10) ?? (metadata.bodySize == 0 ? Data() : nil)
            // A body read whole must be as long as recorded: a shorter or longer one (a damaged or
            // foreign file) is no answer, and its variant is left out.
            if metadata.bodySize <= inlineBodyLimit, body?.count != metadata.bodySize { continue }
            variants.append(StoredVariant(metadata: metadata, body: body))
        }
        return variants
    }

    /// Runs ``entriesSQL`` on a connection, preparing it for this call.
    static func variants(in partition: String?, _ handle: OpaquePointer) throws -> [VariantMetadata] {
        let statement = try SQLiteCalls.prepare(entriesSQL, on: handle, persistent: false)
        defer { sqlite3_finalize(statement) }
        if let partition { try SQLiteCalls.bind(partition, at: 1, of: statement, handle) }
        var entries: [VariantMetadata] = []
        while try SQLiteCalls.step(statement, handle) {
            guard let partition = text(statement, 9), let url = text(statement, 10), let method = text(statement, 11),
                  let metadata = metadata(statement, key: CacheKey(method: method, normalizedURL: url, partition: partition))
            else { continue }
            entries.append(metadata)
        }
        return entries
    }

    /// The metadata in a row's first nine columns; nil when a column has the wrong type or an
    /// impossible value.
    private static func metadata(_ row: OpaquePointer, key: CacheKey) -> VariantMetadata? {
        guard let id = integer(row, 0),
              let vary = bytes(row, 1, VaryCoding.decode),
              let status = integer(row, 2), (100...999).contains(status),
              let headers = bytes(row, 3, HeaderCoding.decode),
              let requestTime = real(row, 4), let responseTime = real(row, 5),
              let bodySize = integer(row, 6), bodySize >= 0,
              let storedAt = real(row, 7), let lastAccess = real(row, 8)
        else { return nil }
        return VariantMetadata(
            id: id, key: key, varySelection: vary, status: Int(status), headers: headers,
            requestTime: Date(timeIntervalSince1970: requestTime), responseTime: Date(timeIntervalSince1970: responseTime),
            bodySize: Int(bodySize), storedAt: Date(timeIntervalSince1970: storedAt), lastAccess: Date(timeIntervalSince1970: lastAccess))
    }

    private static func integer(_ row: OpaquePointer, _ column: Int32) -> Int64? {
        sqlite3_column_type(row, column) == SQLITE_INTEGER ? sqlite3_column_int64(row, column) : nil
    }

    /// A REAL column, or an INTEGER one (SQLite stores a whole REAL value as it likes).
    private static func real(_ row: OpaquePointer, _ column: Int32) -> Double? {
        switch sqlite3_column_type(row, column) {
        case SQLITE_FLOAT, SQLITE_INTEGER: sqlite3_column_double(row, column)
        default: nil
        }
    }

    private static func text(_ row: OpaquePointer, _ column: Int32) -> String? {
        guard sqlite3_column_type(row, column) == SQLITE_TEXT, let text = sqlite3_column_text(row, column) else { return nil }
        let count = Int(sqlite3_column_bytes(row, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// A BLOB column as `Data`; nil when it is NULL or not a BLOB.
    private static func blob(_ row: OpaquePointer, _ column: Int32) -> Data? {
        bytes(row, column) { Data($0) }
    }

    /// `decode` over a BLOB column's bytes, without copying them; nil when it is NULL or not a BLOB.
    private static func bytes<T>(_ row: OpaquePointer, _ column: Int32, _ decode: (UnsafeRawBufferPointer) -> T?) -> T? {
        guard sqlite3_column_type(row, column) == SQLITE_BLOB else { return nil }
        // The pointer first, then the size (SQLite's documented order); an empty BLOB has no pointer.
        let start = sqlite3_column_blob(row, column)
        let count = Int(sqlite3_column_bytes(row, column))
        return decode(UnsafeRawBufferPointer(start: count == 0 ? nil : start, count: count))
    }
}
