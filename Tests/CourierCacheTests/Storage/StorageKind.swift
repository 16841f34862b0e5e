@testable import CourierCache
import Foundation
import Testing

/// The storages the conformance suite runs against: the SQLite store on a file, and the in-memory one.
enum StorageKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case memory

    var testDescription: String { rawValue }

    /// Runs `body` with a fresh storage of this kind (the SQLite file in a temporary directory, removed afterwards).
    func with<T>(maximumSize: Int = 10_000_000, _ body: (any CacheStorage) async throws -> T) async throws -> T {
        switch self {
        case .memory:
            return try await body(InMemoryCacheStorage(maximumSize: maximumSize))
        case .sqlite:
            return try await StoreFixtures.withTemporaryDirectory { directory in
                let store = try CacheStore(fileURL: directory.appendingPathComponent("cache.sqlite"), maximumSize: maximumSize)
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
