@testable import CourierCache
@testable import CourierCacheTesting
import Foundation
import GRDB
import HTTPTypes
import Testing

/// Helpers shared by the store tests: temporary directories, keys and random bodies.
enum StoreFixtures {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000.25)

    /// Runs `body` with a fresh temporary directory, removed afterwards.
    static func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("courier-cache-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }

    /// A key for `https://api.example.com/<path>`.
    static func key(_ path: String = "items?page=1", method: String = "GET", partition: String = "") -> CacheKey {
        CacheKey(method: method, normalizedURL: "https://api.example.com/\(path)", partition: partition)
    }

    /// Random bytes, always containing NUL bytes (the conformance checks' generator: a system call
    /// a byte starved the other tests of their threads under Thread Sanitizer).
    static func randomBody(_ count: Int) -> Data { Fixtures.body(count) }

    /// Writes a row for `url` as a foreign or damaged program might (`vary`, `status`, `bodySize` as SQL
    /// literals), beside what the store wrote.
    static func insertForeignRow(into file: URL, url: String, vary: String, status: String, bodySize: String) async throws {
        let foreign = try DatabaseQueue(path: file.path)
        try await foreign.write { db in
            try db.execute(sql: """
                INSERT INTO entry (method, url, partitionKey, varyKey, vary, status, headers, requestTime, responseTime,
                                   bodySize, metaSize, storedAt, lastAccess, accessOrder)
                VALUES ('GET', ?, '', 'x', \(vary), \(status), 'garbage', 'soon', 0, \(bodySize), 0, 0, 0, 0)
                """, arguments: [url])
        }
    }

    /// Typical stored headers, with a duplicated field to check order and duplicates survive.
    static let headers = RuleFixtures.fields([
        ("Content-Type", "application/octet-stream"), ("Cache-Control", "max-age=60"), ("ETag", "\"abc\""),
        ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2"),
    ])

    /// Stores `body` under `key` with default metadata; the stored variant, nil when too large.
    @discardableResult
    static func put(
        _ storage: any CacheStorage, _ key: CacheKey, body: Data, vary: VarySelection = .none, headers: HTTPFields = headers
    ) async throws -> VariantMetadata? {
        try await storage.store(response(key, vary: vary, headers: headers), body: .bytes(body)).stored
    }

    /// A `200` to store under `key`, requested at ``t0`` and received half a second later.
    static func response(_ key: CacheKey, vary: VarySelection = .none, headers: HTTPFields = headers) -> VariantToStore {
        VariantToStore(
            key: key, varySelection: vary, status: 200, headers: headers, requestTime: t0, responseTime: t0.addingTimeInterval(0.5))
    }
}
