/// Which stored variants a removal takes.
public enum CacheScope: Sendable, Hashable {
    /// Every method and variant of a normalized URL, in one partition or (nil) in all.
    case url(String, partition: String?)
    /// Every method and variant of the normalized URLs at or under a prefix (an origin and a path,
    /// no query), as ``url(_:isUnder:)`` tells, in one partition or (nil) in all.
    case under(String, partition: String?)
    /// Every variant of one partition (a user's).
    case partition(String)
    /// Everything.
    case everything

    /// Whether a normalized URL lies at or under `prefix`: the prefix itself, with a query, or
    /// continued after a `/`; everything that starts with it when it ends with `/`. Every storage
    /// applies this rule, in memory or as a query.
    public static func url(_ url: String, isUnder prefix: String) -> Bool {
        guard url.hasPrefix(prefix) else { return false }
        if prefix.hasSuffix("/") { return true }
        let rest = url.utf8.dropFirst(prefix.utf8.count)
        return rest.isEmpty || rest.first == UInt8(ascii: "?") || rest.first == UInt8(ascii: "/")
    }

    /// Whether this scope takes a variant stored under `key`.
    public func contains(_ key: CacheKey) -> Bool {
        switch self {
        case .url(let url, let partition): key.url == url && (partition == nil || key.partition == partition)
        case .under(let prefix, let partition): Self.url(key.url, isUnder: prefix) && (partition == nil || key.partition == partition)
        case .partition(let partition): key.partition == partition
        case .everything: true
        }
    }
}
