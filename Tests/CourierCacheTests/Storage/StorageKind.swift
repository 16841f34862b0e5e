@testable import CourierCache
import CourierCachePostgres
import Foundation
import Testing

/// The storages the conformance suite runs against: the SQLite store on a new file, the SQLite store
/// opened again on the file it created (and closed), the in-memory one, and PostgreSQL (a database
/// of its own on the tests' throwaway server; left out, loudly, where PostgreSQL isn't installed).
enum StorageKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case reopened
    case memory
    case postgres

    static var allCases: [StorageKind] {
        ThrowawayPostgres.isAvailable ? [.sqlite, .reopened, .memory, .postgres] : [.sqlite, .reopened, .memory]
    }

    var testDescription: String { rawValue }

    /// Runs `body` with a fresh storage of this kind (the SQLite file in a temporary directory, removed afterwards).
    func with<T>(maximumSize: Int = 10_000_000, _ body: (any CacheStorage) async throws -> T) async throws -> T {
        switch self {
        case .memory:
            return try await body(InMemoryCacheStorage(maximumSize: maximumSize))
        case .postgres:
            let server = try ThrowawayPostgres.shared.get()
            let database = try await server.makeDatabase()
            return try await server.withClient(database: database) { client in
                // A generous timeout: the suite tests behaviour, under a loaded machine's test run.
                try await body(PostgresCacheStorage(client: client, maximumSize: maximumSize, timeout: .seconds(30)))
            }
        case .sqlite, .reopened:
            return try await StoreFixtures.withTemporaryDirectory { directory in
                let file = directory.appendingPathComponent("cache.sqlite")
                if self == .reopened { try await SQLiteCacheStorage(fileURL: file, maximumSize: maximumSize).close() }
                let store = try SQLiteCacheStorage(fileURL: file, maximumSize: maximumSize)
                do {
                    let result = try await body(store)
                    await store.close()
                    return result
                } catch {
                    await store.close()
                    throw error
                }
            }
        }
    }
}
