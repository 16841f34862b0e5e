import Courier
import Foundation

/// What an app can see and remove in its cache: the entries of a partition, totals per partition,
/// and removals by URL, by URL prefix or by a predicate. Each waits for the responses accepted for
/// storing so far, so it sees them.
extension HTTPCache {
    /// The stored responses of one partition, or (nil) of every partition, oldest first.
    public func entries(in partition: CachePartition? = nil) async throws -> [CacheEntry] {
        let now = clock
        return try await storedVariants(in: partition).compactMap { CacheEntry($0, rules: rules, now: now) }
    }

    /// The number of stored responses and their bytes, per partition that holds any.
    public func totals() async throws -> [CachePartition: CacheTotals] {
        var totals: [CachePartition: CacheTotals] = [:]
        for variant in try await storedVariants(in: nil) {
            let partition = CachePartition(storageName: variant.key.partition)
            totals[partition, default: CacheTotals()].count += 1
            totals[partition, default: CacheTotals()].totalBytes += variant.bodySize + CacheStorageSize.metadata(of: variant, headers: variant.headers)
        }
        return totals
    }

    /// Removes every stored response of `url` (every method and variant), in one partition or (nil)
    /// in all; returns how many were removed. The cache's ``ignoredQueryItems`` don't count.
    @discardableResult
    public func remove(url: URL, in partition: CachePartition? = nil) async throws -> Int {
        guard let normalized = keyURL(url.absoluteString, ignoring: ignoredQueryItems, secrets: try await storage.secrets(alsoNamedBy: nil)) else { return 0 }
        if partition != .ownCredentials {
            await coordination.writes.waitForAll()
            return try await storage.removeAll(.url(normalized, partition: partition?.storageName))
        }
        return try await removeVariants(in: partition) { variant, _ in variant.key.url == normalized }
    }

    /// Removes every stored response whose URL is `prefix` or lies under it: the same scheme, host
    /// and port, and a path that equals the prefix's or continues it after a `/` (`/users/1` takes
    /// `/users/1` and `/users/1/friends?page=2`, not `/users/10`). The prefix's query is ignored.
    /// Returns how many were removed.
    @discardableResult
    public func remove(under prefix: URL, in partition: CachePartition? = nil) async throws -> Int {
        guard let prefix = URLComponents(url: prefix.absoluteURL, resolvingAgainstBaseURL: false),
              let origin = CacheKey.normalizedURL(string: Self.origin(of: prefix) + "/")
        else { return 0 }
        // A stored URL is normalized: its origin, then a path that starts with `/`.
        let under = origin + (prefix.percentEncodedPath.isEmpty ? "/" : prefix.percentEncodedPath).dropFirst()
        if partition != .ownCredentials {
            await coordination.writes.waitForAll()
            return try await storage.removeAll(.under(under, partition: partition?.storageName))
        }
        return try await removeVariants(in: partition) { variant, _ in CacheScope.url(variant.key.url, isUnder: under) }
    }

    /// Removes every stored response `isRemoved` picks, in one partition or (nil) in all; returns
    /// how many were removed.
    /// - Throws: The predicate's error (the entries removed before it stay removed), or the storage's.
    @discardableResult
    public func remove(in partition: CachePartition? = nil, where isRemoved: (CacheEntry) throws -> Bool) async throws -> Int {
        let now = clock
        return try await removeVariants(in: partition) { variant, rules in
            try CacheEntry(variant, rules: rules, now: now).map(isRemoved) ?? false
        }
    }

    /// The stored variants of a partition (every partition for nil), once the pending writes are done.
    private func storedVariants(in partition: CachePartition?) async throws -> [VariantMetadata] {
        await coordination.writes.waitForAll()
        let variants = try await storage.variants(in: partition?.storageName)
        guard let partition else { return variants }
        return variants.filter { partition.contains(storageName: $0.key.partition) }
    }

    /// Removes each variant of `partition` that `matches`; counts those still there to remove.
    private func removeVariants(
        in partition: CachePartition?, where matches: (VariantMetadata, CacheRules) throws -> Bool
    ) async throws -> Int {
        var removed = 0
        for variant in try await storedVariants(in: partition) where try matches(variant, rules) {
            if try await storage.remove(variant) { removed += 1 }
        }
        return removed
    }

    /// `scheme://host[:port]` of a URL, as the cache normalizes it.
    private static func origin(of components: URLComponents) -> String {
        let scheme = components.scheme ?? "https"
        let port = components.port.map { ":\($0)" } ?? ""
        return scheme + "://" + (components.percentEncodedHost ?? "") + port
    }
}
