import Courier
import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// A ``CacheStorage`` in memory: for sessions that must leave no trace, and for tests of what is
/// cached without a file. Evicts the least recently used variants like ``SQLiteCacheStorage``.
public final class InMemoryCacheStorage: CacheStorage {
    public let maximumSize: Int
    /// This run's key for secret values: nothing outlives the storage.
    private let key: [UInt8]

    private struct Entry {
        var metadata: VariantMetadata
        var body: Data
        var metaSize: Int
        /// Larger is used more recently.
        var useOrder: Int64
        var size: Int { body.count + metaSize }
    }

    private struct State {
        /// By id, which only grows: a replaced variant's id is never given again.
        var entries: [Int64: Entry] = [:]
        var lastID: Int64 = 0
        var lastUse: Int64 = 0
        var bytes = 0

        mutating func nextUse() -> Int64 {
            lastUse += 1
            return lastUse
        }

        mutating func remove(_ id: Int64) {
            guard let removed = entries.removeValue(forKey: id) else { return }
            bytes -= removed.size
        }

        func id(of key: CacheKey, varyKey: String) -> Int64? {
            entries.first { $0.value.metadata.key == key && $0.value.metadata.varySelection.canonicalKey == varyKey }?.key
        }
    }

    private let state = Locked(State())

    /// Creates an empty storage of at most `maximumSize` bytes.
    public init(maximumSize: Int) {
        self.maximumSize = maximumSize
        var generator = SystemRandomNumberGenerator()
        key = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    public func secretKey() async throws -> [UInt8] { key }

    public func variants(of key: CacheKey, inlineBodyLimit: Int) async throws -> [StoredVariant] {
        state.withLock { state in
            state.entries.values.filter { $0.metadata.key == key }.sorted { $0.metadata.id < $1.metadata.id }.map {
                StoredVariant(metadata: $0.metadata, body: $0.body.count <= inlineBodyLimit ? $0.body : nil)
            }
        }
    }

    public func body(of entry: VariantMetadata, offsets: Range<Int>) async throws -> HTTPBody? {
        let body = state.withLock { state in state.entries[entry.id].flatMap { $0.metadata.key == entry.key ? $0.body : nil } }
        return body?.body(at: offsets)
    }

    public func store(_ response: VariantToStore, body: CacheBody) async throws -> StoreOutcome {
        var bytes = body.bytes ?? Data()
        if body.bytes == nil {
            for try await chunk in body.chunks() { bytes.append(chunk) }
        }
        let metaSize = CacheStorageSize.metadata(of: response)
        let limit = maximumSize
        let now = Date()
        return state.withLock { state in
            let varyKey = response.varySelection.canonicalKey
            if let replaced = state.id(of: response.key, varyKey: varyKey) { state.remove(replaced) }
            guard bytes.count + metaSize <= limit else { return StoreOutcome() }
            state.lastID += 1
            let metadata = response.metadata(id: state.lastID, bodySize: bytes.count, now: now)
            let entry = Entry(metadata: metadata, body: Data(bytes), metaSize: metaSize, useOrder: state.nextUse())
            state.entries[metadata.id] = entry
            state.bytes += entry.size
            var outcome = StoreOutcome(stored: metadata)
            for victim in state.entries.values.sorted(by: { ($0.useOrder, $0.metadata.id) < ($1.useOrder, $1.metadata.id) })
            where state.bytes > limit && victim.metadata.id != metadata.id {
                state.remove(victim.metadata.id)
                outcome.evictedCount += 1
                outcome.evictedBytes += victim.size
            }
            return outcome
        }
    }

    public func updateHeaders(of entry: VariantMetadata, headers: HTTPFields, requestTime: Date, responseTime: Date) async throws -> Bool {
        let metaSize = CacheStorageSize.metadata(of: entry, headers: headers)
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970)
        return state.withLock { state in
            guard var stored = state.entries[entry.id], stored.metadata.key == entry.key else { return false }
            let old = stored.metadata
            stored.metadata = VariantMetadata(
                id: old.id, key: old.key, varySelection: old.varySelection, status: old.status, headers: headers,
                requestTime: requestTime, responseTime: responseTime, bodySize: old.bodySize, storedAt: old.storedAt, lastAccess: now)
            state.bytes += metaSize - stored.metaSize
            stored.metaSize = metaSize
            stored.useOrder = state.nextUse()
            state.entries[entry.id] = stored
            return true
        }
    }

    public func recordUse(of entry: VariantMetadata) async {
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970)
        state.withLock { state in
            guard var stored = state.entries[entry.id] else { return }
            stored.useOrder = state.nextUse()
            stored.metadata = stored.metadata.used(at: now)
            state.entries[entry.id] = stored
        }
    }

    public func remove(_ entry: VariantMetadata) async throws -> Bool {
        state.withLock { state in
            guard state.entries[entry.id]?.metadata.key == entry.key else { return false }
            state.remove(entry.id)
            return true
        }
    }

    public func removeAll(_ scope: CacheScope) async throws -> Int {
        state.withLock { state in
            let doomed = state.entries.values.filter { scope.contains($0.metadata.key) }
            for entry in doomed { state.remove(entry.metadata.id) }
            return doomed.count
        }
    }

    public func variants(in partition: String?) async throws -> [VariantMetadata] {
        state.withLock { state in
            state.entries.values.map(\.metadata).filter { partition == nil || $0.key.partition == partition }.sorted { $0.id < $1.id }
        }
    }

    public func totals() async throws -> CacheTotals {
        state.withLock { CacheTotals(count: $0.entries.count, totalBytes: $0.bytes) }
    }
}
