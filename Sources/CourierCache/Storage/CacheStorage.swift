import Courier
import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// Where an ``HTTPCache`` keeps its responses: stored variants by key, their bodies, their sizes.
///
/// The cache's rules and the middleware decide *what* is stored and served; a storage only keeps
/// it, evicting the least recently used variants beyond ``maximumSize``. Two implement it:
/// ``CacheStore`` (SQLite, the embedded default) and ``InMemoryCacheStorage``, and one conformance
/// suite runs against both. A storage shared by a fleet of servers (Redis, PostgreSQL) would
/// implement this too.
///
/// Every operation either does what it says or throws; a storage never stores a variant without
/// its whole body. Ids are never reused, so a variant read before a replacement never reaches
/// the body of its successor.
package protocol CacheStorage: Sendable {
    /// The size limit in bytes (bodies plus approximate metadata, see ``CacheStorageSize``).
    var maximumSize: Int { get }
    /// Hits, misses, evictions and failures, reported by ``currentStatistics()``.
    var counters: StoreCounters { get }
    /// Where failures are reported.
    var logger: Logger { get }
    /// The keyed hash of secret request values: the same key for as long as the stored data lives,
    /// so a value stored as a hash matches the same value later.
    var secrets: HMAC { get }

    /// Every stored variant of `key`, oldest first, each with its body when that is at most
    /// `inlineBodyLimit` bytes (larger bodies are read with ``body(of:)`` or ``body(of:offsets:)``).
    func variants(of key: CacheKey, inlineBodyLimit: Int) async throws -> [StoredVariant]
    /// The whole body of a variant; nil when the variant has been replaced or removed since it was read.
    func body(of entry: CachedMetadata) async throws -> Data?
    /// The bytes of a variant's body at `offsets`, as a stream that need not be in memory at once;
    /// nil when the variant has been replaced or removed, or is shorter.
    func body(of entry: CachedMetadata, offsets: Range<Int>) async throws -> HTTPBody?

    /// Stores a response, replacing the variant of its key with the same vary selection, as the
    /// most recently used, then evicts. Too large for ``maximumSize``, it isn't stored and the
    /// variant it would replace is removed.
    /// - Throws: ``CacheStoreError/invalidStatus(_:)`` for a status outside `100...999`, or the
    ///   storage's own error (then nothing changed).
    func store(_ response: StorableResponse, body: StorableBody) async throws -> StoreOutcome
    /// Replaces a variant's header fields and times (after a `304` or a `HEAD`) and marks it used;
    /// `false` when the variant no longer exists.
    func updateHeaders(of entry: CachedMetadata, headers: HTTPFields, requestTime: Date, responseTime: Date) async throws -> Bool
    /// Marks a variant as just used, so eviction takes it last; best effort.
    func recordUse(of entry: CachedMetadata) async
    /// Removes one variant; `false` when it was already replaced or removed.
    func remove(_ entry: CachedMetadata) async throws -> Bool
    /// Removes every variant in `scope`; returns how many. Removing a partition or everything
    /// also erases the removed bytes where the storage can (a signed-out user's data).
    func removeAll(_ scope: CacheScope) async throws -> Int
    /// The number of stored variants and their bytes, as ``maximumSize`` counts them.
    func totals() async throws -> (entries: Int, bytes: Int)
    /// Every stored variant of one partition, or (nil) of all, metadata only, oldest first: for a
    /// listing, and for removals that choose by what was stored.
    func entries(in partition: String?) async throws -> [CachedMetadata]
}

/// A response to store, without its body.
package struct StorableResponse: Sendable {
    package var key: CacheKey
    /// The request values its `Vary` header selects.
    package var varySelection: VarySelection
    package var status: Int
    /// The fields to store (``CacheRules/fieldsToStore(_:)`` applied).
    package var headers: HTTPFields
    /// When the request was sent, and its response received (RFC 9111 §4.2.3).
    package var requestTime: Date
    package var responseTime: Date

    /// Creates a response to store.
    package init(key: CacheKey, varySelection: VarySelection, status: Int, headers: HTTPFields, requestTime: Date, responseTime: Date) {
        self.key = key
        self.varySelection = varySelection
        self.status = status
        self.headers = headers
        self.requestTime = requestTime
        self.responseTime = responseTime
    }

    /// Its metadata once stored under `id` with a body of `bodySize` bytes, now. Dates go through
    /// `timeIntervalSince1970` as a storage keeps them, so this equals what a later read returns.
    func metadata(id: Int64, bodySize: Int, now: Date) -> CachedMetadata {
        let stamp = Date(timeIntervalSince1970: now.timeIntervalSince1970)
        return CachedMetadata(
            id: id, key: key, varySelection: varySelection, status: status, headers: headers,
            requestTime: Date(timeIntervalSince1970: requestTime.timeIntervalSince1970),
            responseTime: Date(timeIntervalSince1970: responseTime.timeIntervalSince1970),
            bodySize: bodySize, storedAt: stamp, lastAccess: stamp)
    }
}

/// The body of a response to store.
package enum StorableBody: Sendable {
    /// Bytes in memory.
    case bytes(Data)
    /// A file (a download's), copied in a chunk at a time; one whose size changes while it is
    /// copied is not stored.
    case file(URL)
}

/// What storing a response did.
package struct StoreOutcome: Sendable {
    /// The stored variant; nil when it was too large to store.
    package var stored: CachedMetadata?
    /// How many variants eviction removed to make room, and their bytes.
    package var evictedCount = 0
    package var evictedBytes = 0
}

/// Which stored variants a removal takes.
package enum CacheScope: Sendable, Hashable {
    /// Every method and variant of a normalized URL, in one partition or (nil) in all.
    case url(String, partition: String?)
    /// Every method and variant of the normalized URLs at or under a prefix (an origin and a path,
    /// no query): the prefix itself, with a query, or continued after a `/`; everything that
    /// starts with it when it ends with `/`. In one partition or (nil) in all.
    case under(String, partition: String?)
    /// Every variant of one partition (a user's).
    case partition(String)
    /// Everything.
    case everything

    /// Whether a normalized URL lies at or under `prefix` (see ``under(_:partition:)``): the rule
    /// every storage applies, in memory or as a query.
    static func url(_ url: String, isUnder prefix: String) -> Bool {
        guard url.hasPrefix(prefix) else { return false }
        if prefix.hasSuffix("/") { return true }
        let rest = url.utf8.dropFirst(prefix.utf8.count)
        return rest.isEmpty || rest.first == UInt8(ascii: "?") || rest.first == UInt8(ascii: "/")
    }
}

/// A stored variant as a lookup reads it: its metadata, and its body when small.
package struct StoredVariant: Sendable {
    package var metadata: CachedMetadata
    package var body: Data?

    /// Creates a variant read from a storage.
    package init(metadata: CachedMetadata, body: Data?) {
        self.metadata = metadata
        self.body = body
    }
}

/// How a storage counts a variant's size against its ``CacheStorage/maximumSize``.
package enum CacheStorageSize {
    /// The approximate bytes a variant costs besides its body: the key, the vary selection, each
    /// header field counted as name + value + 32 (the size HPACK gives a field, RFC 7541 §4.1),
    /// and 128 for the record itself; the same whatever the encoding.
    static func metadata(of response: StorableResponse) -> Int {
        let key = response.key
        var size = key.method.utf8.count + key.url.utf8.count + key.partition.utf8.count + 128
        size += response.varySelection.canonicalKey.utf8.count * 2
        for field in response.headers { size += field.nameAndValueByteCount + 32 }
        return size
    }

    /// ``metadata(of:)`` for a stored variant whose header fields become `headers`.
    static func metadata(of entry: CachedMetadata, headers: HTTPFields) -> Int {
        metadata(of: StorableResponse(
            key: entry.key, varySelection: entry.varySelection, status: entry.status, headers: headers,
            requestTime: entry.requestTime, responseTime: entry.responseTime))
    }
}

extension CacheStorage {
    /// The variant `select` picks among the stored variants of `key`, with its body when that is
    /// at most `inlineBodyLimit` bytes.
    package func lookup(
        _ key: CacheKey, inlineBodyLimit: Int = 64 * 1024, select: ([CachedMetadata]) -> CachedMetadata?
    ) async throws -> StoredVariant? {
        let variants = try await variants(of: key, inlineBodyLimit: inlineBodyLimit)
        guard let chosen = select(variants.map(\.metadata)) else { return nil }
        return variants.last { $0.metadata.id == chosen.id }
    }

    /// Every stored variant of `key`, metadata only.
    package func variants(for key: CacheKey) async throws -> [CachedMetadata] {
        try await variants(of: key, inlineBodyLimit: -1).map(\.metadata)
    }

    /// The counters and the current totals.
    package func currentStatistics() async throws -> CacheStatistics {
        let (entries, bytes) = try await totals()
        // Read after the totals, whose read may have found a damaged file and replaced it.
        let counted = counters.snapshot
        return CacheStatistics(
            hits: counted.hits, misses: counted.misses, evictions: counted.evictions, failures: counted.failures,
            recoveries: counted.recoveries, entryCount: entries, totalBytes: bytes)
    }
}
