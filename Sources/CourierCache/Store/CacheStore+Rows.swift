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
    static func metadata(from row: Row, key: CacheKey? = nil) -> CachedMetadata? {
        guard let id = try? row.decode(Int64.self, atIndex: 0),
              let key = key ?? decodeKey(row),
              let vary = try? row.withUnsafeData(atIndex: 4, { $0.flatMap(VaryCoding.decode) }),
              let status = try? row.decode(Int.self, atIndex: 5), (100...999).contains(status),
              let headers = try? row.withUnsafeData(atIndex: 6, { $0.flatMap(HeaderCoding.decode) }),
              let requestTime = try? row.decode(Double.self, atIndex: 7),
              let responseTime = try? row.decode(Double.self, atIndex: 8),
              let bodySize = try? row.decode(Int.self, atIndex: 9),
              let storedAt = try? row.decode(Double.self, atIndex: 10),
              let lastAccess = try? row.decode(Double.self, atIndex: 11)
        else { return nil }
        return CachedMetadata(
            id: id, key: key, varySelection: vary,
            status: status, headers: headers, requestTime: Date(timeIntervalSince1970: requestTime),
            responseTime: Date(timeIntervalSince1970: responseTime), bodySize: bodySize,
            storedAt: Date(timeIntervalSince1970: storedAt), lastAccess: Date(timeIntervalSince1970: lastAccess))
    }

    private static func decodeKey(_ row: Row) -> CacheKey? {
        guard let method = try? row.decode(String.self, atIndex: 1),
              let url = try? row.decode(String.self, atIndex: 2),
              let partition = try? row.decode(String.self, atIndex: 3)
        else { return nil }
        return CacheKey(method: method, normalizedURL: url, partition: partition)
    }

    /// The approximate bytes a row costs besides its body: the key, the vary selection, each
    /// header field counted as name + value + 32 (the size HPACK gives a field, RFC 7541 §4.1),
    /// and 128 for the row itself; the same whatever the encoding on disk.
    static func metadataSize(key: CacheKey, varySelection: VarySelection, headers: HTTPFields) -> Int {
        var size = key.method.utf8.count + key.url.utf8.count + key.partition.utf8.count + 128
        size += varySelection.canonicalKey.utf8.count * 2
        for field in headers { size += field.name.rawName.utf8.count + field.value.utf8.count + 32 }
        return size
    }
}
