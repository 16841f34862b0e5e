import Courier
import Foundation

/// Recently read variants and their small bodies, kept in memory so a cache hit skips SQLite.
///
/// Every write through the store empties it (before and after the transaction), so a hit reflects
/// this store's own writes at once. Writes by another store or process on the same file are seen
/// within ``lifetime``: an entry read earlier than that is read again.
final class HotEntries: Sendable {
    /// How long an entry is trusted without reading the file again.
    static let lifetime: Duration = .seconds(1)
    /// How many keys are kept at most.
    static let capacity = 512

    struct Entry: Sendable {
        var variants: [CachedMetadata]
        var bodies: [Int64: Data]
        var loadedAt: ContinuousClock.Instant
    }

    private let entries = Locked<[CacheKey: Entry]>([:])

    /// The entry of `key`, when it was read recently enough.
    func entry(for key: CacheKey) -> Entry? {
        entries.withLock { entries in
            guard let entry = entries[key] else { return nil }
            guard ContinuousClock.now - entry.loadedAt < Self.lifetime else {
                entries[key] = nil
                return nil
            }
            return entry
        }
    }

    /// Remembers what was just read for `key`.
    func remember(_ key: CacheKey, variants: [CachedMetadata], body: (id: Int64, data: Data)?) {
        entries.withLock { entries in
            if entries.count >= Self.capacity, entries[key] == nil { entries.removeAll(keepingCapacity: true) }
            var entry = Entry(variants: variants, bodies: [:], loadedAt: .now)
            if let body { entry.bodies[body.id] = body.data }
            entries[key] = entry
        }
    }

    /// Forgets everything (after any write).
    func invalidate() {
        entries.withLock { $0.removeAll(keepingCapacity: true) }
    }
}
