/// Counters and size of a ``CacheStore``.
///
/// `hits`, `misses` and `evictions` count since this `CacheStore` instance was created (hits and
/// misses are counted by ``HTTPCache``);
/// `entryCount` and `totalBytes` describe the database file, whichever process wrote it.
public struct CacheStatistics: Sendable, Hashable {
    /// Requests answered from the cache, as reported by the caller.
    public var hits: Int
    /// Requests the cache could not answer, as reported by the caller.
    public var misses: Int
    /// Variants removed by this instance to stay under the size limit.
    public var evictions: Int
    /// Store operations that failed (each is logged with the file's path).
    public var failures: Int
    /// Times a file damaged while in use was replaced by a fresh one (and deleted).
    public var recoveries: Int
    /// Stored variants.
    public var entryCount: Int
    /// Bodies plus approximate metadata size, in bytes.
    public var totalBytes: Int

    /// Creates statistics.
    public init(
        hits: Int = 0, misses: Int = 0, evictions: Int = 0, failures: Int = 0, recoveries: Int = 0, entryCount: Int = 0,
        totalBytes: Int = 0
    ) {
        self.hits = hits
        self.misses = misses
        self.evictions = evictions
        self.failures = failures
        self.recoveries = recoveries
        self.entryCount = entryCount
        self.totalBytes = totalBytes
    }

    /// `hits / (hits + misses)`, or 0 before any lookup.
    public var hitRatio: Double {
        hits + misses == 0 ? 0 : Double(hits) / Double(hits + misses)
    }
}
