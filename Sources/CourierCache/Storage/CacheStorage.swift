import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Where an ``HTTPCache`` keeps its responses: stored variants by key, their bodies, their sizes.
///
/// The cache decides *what* is stored and served, hashes secret values, counts and logs; a
/// storage only keeps what it is given, evicting the least recently used variants beyond
/// ``maximumSize`` as ``CacheStorageSize`` counts them. Three implement it: ``SQLiteCacheStorage``
/// (SQLite, the embedded default), ``InMemoryCacheStorage``, and `PostgresCacheStorage` in the
/// `CourierCachePostgres` product, which a fleet of servers shares; one conformance suite runs
/// against all three.
///
/// Every operation either does what it says or throws (the cache then goes on as on a miss, and
/// counts the failure); a storage never stores a variant without its whole body. A storage gives
/// each stored variant an ``VariantMetadata/id`` it never gives again for the same key, so a
/// variant read before a replacement never reaches the body of its successor.
public protocol CacheStorage: Sendable {
    /// The size limit in bytes (bodies plus ``CacheStorageSize/metadata(of:)``).
    var maximumSize: Int { get }

    /// Who the stored responses serve, unless the app tells ``HTTPCache`` otherwise: one user's
    /// device or process (``CacheSharing/private``, the default), or many end users
    /// (``CacheSharing/shared``, a storage a fleet of servers shares).
    var sharing: CacheSharing { get }

    /// The key the cache hashes secret request values with (see `Redaction`): the same for as long
    /// as the stored data lives and for every instance that shares it, so a value stored as a hash
    /// matches the same value later and elsewhere. Random, at least 32 bytes, created with the storage.
    func secretKey() async throws -> [UInt8]

    /// Every stored variant of `key`, oldest first, each with its body when that is at most
    /// `inlineBodyLimit` bytes (larger bodies are read with ``body(of:offsets:)``): a lookup's one round trip.
    func variants(of key: CacheKey, inlineBodyLimit: Int) async throws -> [StoredVariant]
    /// ``variants(of:inlineBodyLimit:)`` and, in the same round trip, where the key's partition's
    /// clears stand (see ``CacheClearMark``): what ``HTTPCache`` reads before it sends a request.
    func lookup(_ key: CacheKey, inlineBodyLimit: Int) async throws -> CacheLookup
    /// ``lookup(_:inlineBodyLimit:)`` that, when nothing at all is stored under `key`, also claims
    /// the flight that fetches it (see ``CacheFlightClaim``) and says whose turn it is in
    /// ``CacheLookup/flight``, in the same round trip. A storage that many processes share
    /// implements the four flight operations to spare the origin their herd; one that doesn't keeps
    /// the defaults, and ``HTTPCache`` shares misses within each process only.
    func lookup(_ key: CacheKey, inlineBodyLimit: Int, claimingFlight claim: CacheFlightClaim) async throws -> CacheLookup
    /// Claims the flight of `key` whatever is stored (a background revalidation): whose turn it
    /// is, or nil from a storage that keeps no flights.
    func claimFlight(of key: CacheKey, _ claim: CacheFlightClaim) async throws -> CacheFlightTurn?
    /// Whether a claim on `key`'s flight by another than `claimant` still holds: false once the key
    /// was stored, the flight ended, the claim ran out, or the claim is `claimant`'s own.
    func isFlightUnderway(of key: CacheKey, byAnotherThan claimant: UUID) async throws -> Bool
    /// Ends `claimant`'s flight of `key` (its response was not stored); another's claim stays.
    func endFlight(of key: CacheKey, claimant: UUID) async throws
    /// Where a partition's clears stand now, read before a request is sent without a lookup; nil
    /// from a storage that keeps no clear marks.
    func clearMark(of partition: String) async throws -> CacheClearMark?
    /// The bytes of a variant's body at `offsets`, as a stream that need not be in memory at once;
    /// nil when the variant has been replaced or removed, or is shorter.
    func body(of variant: VariantMetadata, offsets: Range<Int>) async throws -> HTTPBody?

    /// Stores a response with its whole body, replacing the variant of its key with the same vary
    /// selection, as the most recently used, then evicts down to ``maximumSize``. Too large for
    /// ``maximumSize``, it isn't stored and the variant it would replace is removed. A body whose
    /// stream ends early or runs long stores nothing (the storage throws). A storage that keeps
    /// clear marks stores nothing when the partition was cleared after the response's
    /// ``VariantToStore/clearMark`` (or, without one, at all in the time it keeps clears). A
    /// response stored ends its key's flight, in the transaction that makes it visible.
    func store(_ response: VariantToStore, body: CacheBody) async throws -> StoreOutcome
    /// Replaces a variant's header fields and times (after a `304` or a `HEAD`) and marks it used;
    /// `false` when the variant no longer exists.
    func updateHeaders(of variant: VariantMetadata, headers: HTTPFields, requestTime: Date, responseTime: Date) async throws -> Bool
    /// Marks a variant as just used, so eviction takes it last; best effort, and a storage may
    /// skip a write when the variant was used within the last minute.
    func recordUse(of variant: VariantMetadata) async
    /// Removes one variant; `false` when it was already replaced or removed.
    func remove(_ variant: VariantMetadata) async throws -> Bool
    /// Removes every variant in `scope`; returns how many. Removing a partition or everything
    /// also erases the removed bytes where the storage can (a signed-out user's data).
    func removeAll(_ scope: CacheScope) async throws -> Int
    /// The number of stored variants and their bytes, as ``maximumSize`` counts them.
    func totals() async throws -> CacheTotals
    /// Every stored variant of one partition, or (nil) of all, metadata only, oldest first: for a
    /// listing, and for removals that choose by what was stored.
    func variants(in partition: String?) async throws -> [VariantMetadata]
}

/// A response to store, without its body.
public struct VariantToStore: Sendable, Hashable {
    /// Where it is stored.
    public var key: CacheKey
    /// The request values its `Vary` header selects.
    public var varySelection: VarySelection
    /// Its status code, in `100...999`.
    public var status: Int
    /// The fields to store (hop-by-hop fields and secret values already left out).
    public var headers: HTTPFields
    /// When the request was sent, and its response received (RFC 9111 §4.2.3).
    public var requestTime: Date
    public var responseTime: Date
    /// Where the partition's clears stood before the request was sent (see ``CacheClearMark``);
    /// nil when no storage read gave one.
    public var clearMark: CacheClearMark?

    /// Creates a response to store.
    public init(
        key: CacheKey, varySelection: VarySelection, status: Int, headers: HTTPFields, requestTime: Date, responseTime: Date,
        clearMark: CacheClearMark? = nil
    ) {
        self.key = key
        self.varySelection = varySelection
        self.status = status
        self.headers = headers
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.clearMark = clearMark
    }

    /// Its metadata once stored under `id` with a body of `bodySize` bytes, at `now`. Dates go
    /// through `timeIntervalSince1970` as a storage keeps them, so this equals what a later read returns.
    public func metadata(id: Int64, bodySize: Int, now: Date) -> VariantMetadata {
        let stamp = Date(timeIntervalSince1970: now.timeIntervalSince1970)
        return VariantMetadata(
            id: id, key: key, varySelection: varySelection, status: status, headers: headers,
            requestTime: Date(timeIntervalSince1970: requestTime.timeIntervalSince1970),
            responseTime: Date(timeIntervalSince1970: responseTime.timeIntervalSince1970),
            bodySize: bodySize, storedAt: stamp, lastAccess: stamp)
    }
}

/// What storing a response did.
public struct StoreOutcome: Sendable, Hashable {
    /// The stored variant; nil when it was too large to store.
    public var stored: VariantMetadata?
    /// How many variants eviction removed to make room.
    public var evictedCount: Int
    /// The bytes eviction removed, as ``CacheStorageSize`` counts them.
    public var evictedBytes: Int

    /// Creates an outcome.
    public init(stored: VariantMetadata? = nil, evictedCount: Int = 0, evictedBytes: Int = 0) {
        self.stored = stored
        self.evictedCount = evictedCount
        self.evictedBytes = evictedBytes
    }
}

/// A stored variant as a lookup reads it: its metadata, and its body when small.
public struct StoredVariant: Sendable, Hashable {
    /// The variant.
    public var metadata: VariantMetadata
    /// Its whole body, when the lookup asked for bodies this small.
    public var body: Data?

    /// Creates a variant read from a storage.
    public init(metadata: VariantMetadata, body: Data?) {
        self.metadata = metadata
        self.body = body
    }
}

/// How every storage counts a variant's size against its ``CacheStorage/maximumSize``.
public enum CacheStorageSize {
    /// The approximate bytes a variant costs besides its body: the key, the vary selection, each
    /// header field counted as name + value + 32 (the size HPACK gives a field, RFC 7541 §4.1),
    /// and 128 for the record itself; the same whatever the encoding.
    public static func metadata(of response: VariantToStore) -> Int {
        let key = response.key
        var size = key.method.utf8.count + key.url.utf8.count + key.partition.utf8.count + 128
        size += response.varySelection.canonicalKey.utf8.count * 2
        for field in response.headers { size += field.nameAndValueByteCount + 32 }
        return size
    }

    /// ``metadata(of:)`` for a stored variant whose header fields become `headers`.
    public static func metadata(of variant: VariantMetadata, headers: HTTPFields) -> Int {
        metadata(of: VariantToStore(
            key: variant.key, varySelection: variant.varySelection, status: variant.status, headers: headers,
            requestTime: variant.requestTime, responseTime: variant.responseTime))
    }
}

extension CacheStorage {
    /// One user's device or process.
    public var sharing: CacheSharing { .private }

    /// Every stored variant of `key`, metadata only.
    package func variants(for key: CacheKey) async throws -> [VariantMetadata] {
        try await variants(of: key, inlineBodyLimit: -1).map(\.metadata)
    }

    /// The whole body of a variant, gathered; nil when the variant has been replaced or removed.
    package func body(of variant: VariantMetadata) async throws -> Data? {
        guard let body = try await body(of: variant, offsets: 0..<variant.bodySize) else { return nil }
        return try await Data(collecting: body, upTo: variant.bodySize)
    }
}
