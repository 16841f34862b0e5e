import Foundation
import GRDB

extension CacheStore {
    /// The metadata columns, in the order ``metadata(from:)`` reads them.
    static let metadataColumns = """
        id, method, url, partitionKey, vary, status, headers, requestTime, responseTime, bodySize, storedAt, lastAccess
        """

    /// Decodes a metadata row; `nil` for a row that does not decode (the file comes from outside).
    static func metadata(from row: Row) -> CachedMetadata? {
        guard let id = try? row.decode(Int64.self, forColumn: "id"),
              let method = try? row.decode(String.self, forColumn: "method"),
              let url = try? row.decode(String.self, forColumn: "url"),
              let partition = try? row.decode(String.self, forColumn: "partitionKey"),
              let varyData = try? row.decode(Data.self, forColumn: "vary"),
              let vary = try? JSONDecoder().decode(VarySelection.self, from: varyData),
              let status = try? row.decode(Int.self, forColumn: "status"), (100...999).contains(status),
              let headerData = try? row.decode(Data.self, forColumn: "headers"),
              let headers = HeaderCoding.decode(headerData),
              let requestTime = try? row.decode(Double.self, forColumn: "requestTime"),
              let responseTime = try? row.decode(Double.self, forColumn: "responseTime"),
              let bodySize = try? row.decode(Int.self, forColumn: "bodySize"),
              let storedAt = try? row.decode(Double.self, forColumn: "storedAt"),
              let lastAccess = try? row.decode(Double.self, forColumn: "lastAccess")
        else { return nil }
        return CachedMetadata(
            id: id, key: CacheKey(method: method, normalizedURL: url, partition: partition), varySelection: vary,
            status: status, headers: headers, requestTime: Date(timeIntervalSince1970: requestTime),
            responseTime: Date(timeIntervalSince1970: responseTime), bodySize: bodySize,
            storedAt: Date(timeIntervalSince1970: storedAt), lastAccess: Date(timeIntervalSince1970: lastAccess))
    }

    /// The approximate bytes a row costs besides its body.
    static func metadataSize(key: CacheKey, varyData: Data, headerData: Data) -> Int {
        key.method.utf8.count + key.url.utf8.count + key.partition.utf8.count + varyData.count * 2
            + headerData.count + 128
    }
}
