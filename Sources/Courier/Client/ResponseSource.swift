/// Where a response's value came from.
public struct ResponseSource: Sendable, Hashable, CustomStringConvertible {
    /// A short name: `network`, `cache`, `revalidated` or `stale` (read it as ``description``).
    package let identifier: String
    private init(_ identifier: String) { self.identifier = identifier }

    /// Fetched from the server.
    public static let network = ResponseSource("network")
    /// Served from the cache without contacting the server.
    public static let cache = ResponseSource("cache")
    /// Served from the cache after the server confirmed it was unchanged (304).
    public static let revalidated = ResponseSource("revalidated")
    /// Served from the cache although it is out of date, because the network failed.
    public static let stale = ResponseSource("stale")

    /// A short name, safe as a metric label: `network`, `cache`, `revalidated` or `stale`.
    public var description: String { identifier }
}
