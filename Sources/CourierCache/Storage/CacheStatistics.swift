/// What an ``HTTPCache`` counted and what its storage holds (``HTTPCache/statistics()``).
///
/// `hits`, `misses`, `evictions` and `failures` count since this `HTTPCache` was created;
/// `entryCount` and `totalBytes` describe the storage, whichever process or server wrote it.
public struct CacheStatistics: Sendable, Hashable {
    /// Requests answered from the cache.
    public var hits: Int
    /// Requests the cache could not answer.
    public var misses: Int
    /// Variants the storage removed for this cache's stores, to stay under its size limit.
    public var evictions: Int
    /// Storage operations that failed (the call went on without the cache; the first failure of a
    /// run is logged).
    public var failures: Int
    /// Storage operations calls skipped while the storage rested after failing (they went on
    /// without the cache, with no added wait; see ``HTTPCache``).
    public var skipped: Int
    /// Stored variants.
    public var entryCount: Int
    /// Bodies plus approximate metadata size, in bytes.
    public var totalBytes: Int

    /// Creates statistics.
    public init(
        hits: Int = 0, misses: Int = 0, evictions: Int = 0, failures: Int = 0, skipped: Int = 0, entryCount: Int = 0,
        totalBytes: Int = 0
    ) {
        self.hits = hits
        self.misses = misses
        self.evictions = evictions
        self.failures = failures
        self.skipped = skipped
        self.entryCount = entryCount
        self.totalBytes = totalBytes
    }

    /// `hits / (hits + misses)`, or 0 before any lookup.
    public var hitRatio: Double {
        hits + misses == 0 ? 0 : Double(hits) / Double(hits + misses)
    }
}
