@testable import CourierCache
import Foundation
import Testing

/// The storages the conformance suite runs against: the SQLite store on a new file, the SQLite store
/// opened again on the file it created (and closed), and the in-memory one.
enum StorageKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case reopened
    case memory

    var testDescription: String { rawValue }

    /// Runs `body` with a fresh storage of this kind (the SQLite file in a temporary directory, removed afterwards).
    func with<T>(maximumSize: Int = 10_000_000, _ body: (any CacheStorage) async throws -> T) async throws -> T {
        switch self {
        case .memory:
            return try await body(InMemoryCacheStorage(maximumSize: maximumSize))
        case .sqlite, .reopened:
            return try await StoreFixtures.withTemporaryDirectory { directory in
                let file = directory.appendingPathComponent("cache.sqlite")
                if self == .reopened { try await CacheStore(fileURL: file, maximumSize: maximumSize).close() }
                let store = try CacheStore(fileURL: file, maximumSize: maximumSize)
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
