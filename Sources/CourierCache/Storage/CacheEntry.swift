import Foundation
import HTTPTypes

/// One stored response as ``HTTPCache/entries(in:)`` lists it: for a settings screen, a debug
/// view, or a removal that chooses by what was stored (``HTTPCache/remove(in:where:)``).
public struct CacheEntry: Sendable, Hashable {
    /// The request's method.
    public var method: String
    /// The request's URL, normalized as the cache keys it (scheme and host lowercased, default
    /// port and fragment removed).
    public var url: URL
    /// Whose response it is.
    public var partition: CachePartition
    /// The response's status code.
    public var status: Int
    /// The response's header fields as stored (without hop-by-hop fields; secret values the
    /// response carried are not stored).
    public var headers: HTTPFields
    /// The body's size in bytes.
    public var bodySize: Int
    /// When it was stored, or last replaced.
    public var storedAt: Date
    /// Until when it is fresh (RFC 9111 §4.2): before then the cache answers from it without asking
    /// the server; in the past for a stale entry.
    public var freshUntil: Date
    /// When a call last used it (recorded at most once a minute).
    public var lastUsed: Date

    /// The entry of a stored variant, its freshness read with `rules`; nil when the stored URL
    /// doesn't parse (only a file written by something else holds one).
    init?(_ metadata: VariantMetadata, rules: CacheRules, now: Date) {
        guard let url = URL(string: metadata.key.url) else { return nil }
        let stored = metadata.storedResponse
        let lifetime = rules.freshnessLifetime(of: stored.response, responseTime: metadata.responseTime)
        method = metadata.key.method
        self.url = url
        partition = CachePartition(storageName: metadata.key.partition)
        status = metadata.status
        headers = metadata.headers
        bodySize = metadata.bodySize
        storedAt = metadata.storedAt
        freshUntil = now.addingTimeInterval(lifetime - rules.currentAge(of: stored, now: now))
        lastUsed = metadata.lastAccess
    }
}

/// How many responses a partition holds and their bytes, as ``HTTPCache/totals()`` reports them.
public struct CacheTotals: Sendable, Hashable {
    /// The number of stored responses: the variants a storage holds, each an entry in an app's
    /// listing (``HTTPCache/entries(in:)``).
    public var count: Int
    /// Their bodies and approximate metadata, in bytes, as the store's size limit counts them.
    public var totalBytes: Int

    /// Creates totals.
    public init(count: Int = 0, totalBytes: Int = 0) {
        self.count = count
        self.totalBytes = totalBytes
    }
}
