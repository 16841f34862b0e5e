import Foundation
import GRDB
import HTTPTypes

extension CacheStore {
    /// The metadata columns, in the order ``metadata(from:key:)`` reads them (by position).
    static let metadataColumns = """
        entry.id, entry.method, entry.url, entry.partitionKey, entry.vary, entry.status, entry.headers, \
        entry.requestTime, entry.responseTime, entry.bodySize, entry.storedAt, entry.lastAccess
        """

    /// Decodes a metadata row; `nil` for a row that does not decode (the file comes from outside).
    ///
    /// Columns are read by position; with `key`, the key columns are trusted to match it (the
    /// query selected on them) and not decoded.
    static func metadata(from row: SQLiteRow, key: CacheKey? = nil) -> CachedMetadata? {
        guard let id = row.int64(0),
              let key = key ?? decodeKey(row),
              let vary = row.withBytes(4, VaryCoding.decode) ?? nil,
              let status = row.int64(5), (100...999).contains(status),
              let headers = row.withBytes(6, HeaderCoding.decode) ?? nil,
              let requestTime = row.double(7),
              let responseTime = row.double(8),
              let bodySize = row.int64(9), bodySize >= 0,
              let storedAt = row.double(10),
              let lastAccess = row.double(11)
        else { return nil }
        return CachedMetadata(
            id: id, key: key, varySelection: vary,
            status: Int(status), headers: headers, requestTime: Date(timeIntervalSince1970: requestTime),
            responseTime: Date(timeIntervalSince1970: responseTime), bodySize: Int(bodySize),
            storedAt: Date(timeIntervalSince1970: storedAt), lastAccess: Date(timeIntervalSince1970: lastAccess))
    }

    private static func decodeKey(_ row: SQLiteRow) -> CacheKey? {
        guard let method = row.string(1), let url = row.string(2), let partition = row.string(3) else { return nil }
        return CacheKey(method: method, normalizedURL: url, partition: partition)
    }

    /// Every metadata row `statement` yields, through GRDB's cursor (which steps it); rows that
    /// don't decode are skipped.
    static func metadataRows(_ statement: Statement, arguments: StatementArguments) throws -> [CachedMetadata] {
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        var found: [CachedMetadata] = []
        while try rows.next() != nil {
            if let metadata = metadata(from: SQLiteRow(statement: statement.sqliteStatement)) { found.append(metadata) }
        }
        return found
    }

    /// The approximate bytes a row costs besides its body: the key, the vary selection, each
    /// header field counted as name + value + 32 (the size HPACK gives a field, RFC 7541 §4.1),
    /// and 128 for the row itself; the same whatever the encoding on disk.
    static func metadataSize(key: CacheKey, varySelection: VarySelection, headers: HTTPFields) -> Int {
        var size = key.method.utf8.count + key.url.utf8.count + key.partition.utf8.count + 128
        size += varySelection.canonicalKey.utf8.count * 2
        for field in headers { size += field.nameAndValueByteCount + 32 }
        return size
    }
}
