import Courier
import Foundation

/// The stores open in this process, by file: a store opened on a file first has the others on
/// it write what they have pending, so it reads what they accepted (as after a restart).
final class OpenStores: Sendable {
    static let shared = OpenStores()

    private struct Reference: Sendable {
        weak var store: CacheStore?
    }

    private let stores = Locked<[String: [Reference]]>([:])

    /// Registers `store` and returns the other live stores on the same file.
    func add(_ store: CacheStore) -> [CacheStore] {
        guard let path = store.fileKey else { return [] }
        return stores.withLock { stores in
            var references = (stores[path] ?? []).filter { $0.store != nil }
            let others = references.compactMap(\.store)
            references.append(Reference(store: store))
            stores[path] = references
            return others
        }
    }

    /// The other live stores on `store`'s file.
    func others(than store: CacheStore) -> [CacheStore] {
        guard let path = store.fileKey else { return [] }
        return stores.withLock { stores in
            (stores[path] ?? []).compactMap(\.store).filter { $0 !== store }
        }
    }

    /// Forgets `store` (closed or released).
    func remove(_ store: CacheStore) {
        guard let path = store.fileKey else { return }
        stores.withLock { stores in
            let remaining = (stores[path] ?? []).filter { $0.store != nil && $0.store !== store }
            stores[path] = remaining.isEmpty ? nil : remaining
        }
    }
}
