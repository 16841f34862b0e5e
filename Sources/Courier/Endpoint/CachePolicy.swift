/// How a call may use the response cache (the `CourierCache` product implements it).
///
/// Without a cache middleware in the client, every policy behaves like ``withoutCache``, except
/// ``cacheOnly``: its GET fails as a miss would (`504 Gateway Timeout`), without the network.
public struct CachePolicy: Sendable, Hashable, CustomStringConvertible {
    package enum Mode: String, Sendable, Hashable {
        case withoutCache, followHTTP, alwaysUseCache, useCacheAndRequest, useCacheAndRequestWithoutRecache
        case cacheOnly, networkOnly, networkFirst
    }

    package let mode: Mode
    /// How stale a stored response may be to answer when the network fails, for calls with this
    /// policy; nil leaves it to the cache (`HTTPCache.offlineAllowance`). Set with ``allowingOffline(upTo:)``.
    package private(set) var offlineAllowance: Duration?

    /// Query items left out of the cache key for calls with this policy, beside the cache's own
    /// (`HTTPCache.ignoredQueryItems`). Set with ``ignoringQueryItems(_:)``.
    package private(set) var ignoredQueryItems: Set<String> = []

    package init(_ mode: Mode) { self.mode = mode }

    /// This policy, with the query items named in `names` left out of the cache key: for URLs that
    /// change on every call without changing what they point to, such as pre-signed URLs (see
    /// `HTTPCache.presignedURLQueryItems`). Names match exactly, after percent-decoding.
    ///
    /// Two URLs that differ only in these items share one entry, and the items are not stored. Never
    /// name an item that selects content (a page, a size, a version): one answer would stand for all.
    public func ignoringQueryItems(_ names: Set<String>) -> CachePolicy {
        var policy = self
        policy.ignoredQueryItems.formUnion(names)
        return policy
    }

    /// This policy, answering from a stored response at most `staleness` stale when the network
    /// fails, instead of the cache's own allowance: for an endpoint whose data ages faster or slower
    /// than the rest (a balance: minutes; a catalog: weeks). It applies where the policy falls back
    /// to the cache (``networkFirst``, ``followHTTP``); a response's own `must-revalidate` or
    /// `no-cache` still forbids it.
    ///
    /// ```swift
    /// var cachePolicy: CachePolicy? { .networkFirst.allowingOffline(upTo: .seconds(15 * 60)) }
    /// ```
    public func allowingOffline(upTo staleness: Duration) -> CachePolicy {
        var policy = self
        policy.offlineAllowance = max(.zero, staleness)
        return policy
    }

    /// No read, no write: the network only, nothing stored (the default).
    public static let withoutCache = CachePolicy(.withoutCache)
    /// Standard HTTP caching: follow the server's `Cache-Control`, `Expires`, validators and `Vary`.
    public static let followHTTP = CachePolicy(.followHTTP)
    /// Use a cached value whatever its age; load and store it only when there is none.
    public static let alwaysUseCache = CachePolicy(.alwaysUseCache)
    /// Emit the cached value at once, then the network value, which replaces the cached one.
    public static let useCacheAndRequest = CachePolicy(.useCacheAndRequest)
    /// Emit the cached value at once, then the network value, keeping the old cached one.
    public static let useCacheAndRequestWithoutRecache = CachePolicy(.useCacheAndRequestWithoutRecache)
    /// Answer from the cache only; never touch the network (a miss fails).
    public static let cacheOnly = CachePolicy(.cacheOnly)
    /// Always go to the network, and store the response for later offline use.
    public static let networkOnly = CachePolicy(.networkOnly)
    /// Go to the network; when it fails, answer from the cache, marked stale.
    public static let networkFirst = CachePolicy(.networkFirst)

    /// The policy's name, as written in code (a bounded label: without its offline allowance).
    public var description: String { mode.rawValue }

    /// Whether the policy can deliver two values (cached, then network) to a stream.
    var deliversTwice: Bool { mode == .useCacheAndRequest || mode == .useCacheAndRequestWithoutRecache }
}
