import Foundation
import HTTPTypes

/// The RFC 9111 rules of an HTTP cache, private or shared (see ``CacheSharing``), as pure functions over values.
///
/// Nothing here performs I/O or reads the clock: every time-dependent rule takes `now`.
/// Malformed input never traps and never makes a response cacheable that would not be otherwise.
public struct CacheRules: Sendable, Hashable {
    /// The fraction of `Date − Last-Modified` used as heuristic freshness (RFC 9111 §4.2.2); 10 % by default.
    public var heuristicFraction: Double
    /// The upper bound of a heuristic freshness lifetime, in seconds; 24 hours by default.
    public var maximumHeuristicLifetime: TimeInterval
    /// How the values of credential fields selected by `Vary` are kept: set per call by `HTTPCache`
    /// (the store's key, the client's secret list); nil compares and keeps values as they are.
    package var secrets: SecretValues?
    /// Whether the rules of a shared cache apply (see ``CacheSharing``): set per call by `HTTPCache`,
    /// false in a shared storage for a partition only one named user reads.
    package var isShared = false
    /// Whether the storage serves many end users, whatever the partition: `Set-Cookie` stays out.
    package var storageIsShared = false

    /// Creates rules with the given heuristic-freshness settings.
    public init(heuristicFraction: Double = 0.1, maximumHeuristicLifetime: TimeInterval = 86_400) {
        self.heuristicFraction = heuristicFraction
        self.maximumHeuristicLifetime = maximumHeuristicLifetime
    }

    /// The status codes that are cacheable by default (RFC 9110 §15.1); a `206` only in the shape
    /// described at ``isStorable(request:response:)``.
    package static let heuristicallyCacheableStatuses: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]
}
