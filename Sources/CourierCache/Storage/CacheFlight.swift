import Foundation

/// A claim, made through a storage that many processes share, to fetch a key from the origin for
/// all of them: a *flight*. While it holds, the other processes that miss the key wait for its
/// response in the storage instead of asking the origin too, so a key a fleet misses at once
/// (a popular one that just expired) costs the origin one request.
///
/// ``HTTPCache`` makes the claim with a lookup that finds nothing stored
/// (``CacheStorage/lookup(_:inlineBodyLimit:claimingFlight:)``), and before a background
/// revalidation (``CacheStorage/claimFlight(of:_:)``). A store of the key ends the flight in the
/// same transaction that makes the response visible; a claimant whose response isn't stored ends
/// it itself (``CacheStorage/endFlight(of:claimant:)``), and one that never comes back loses it
/// after ``duration``.
public struct CacheFlightClaim: Sendable, Hashable {
    /// Who claims: one ``HTTPCache`` (its copies share it). A claimant's own claim is its turn again.
    public var claimant: UUID
    /// How long the claim holds unless the key is stored or the claimant ends it: the claimant's
    /// timeout, measured by the storage's clock, so the servers' clocks take no part.
    public var duration: Duration

    /// Creates a claim.
    public init(claimant: UUID, duration: Duration) {
        self.claimant = claimant
        self.duration = duration
    }
}

/// Whose turn it is to fetch a key, as a storage that coordinates flights answers a claim.
public enum CacheFlightTurn: Sendable, Hashable {
    /// The claimant's: it fetches the key, and others wait for it.
    case yours
    /// Another claimant's, whose claim still holds: the claimant waits for its response.
    case another
}

extension CacheStorage {
    /// The lookup, with no claim: a storage of one process keeps no flights, and ``HTTPCache``
    /// shares misses within its process only.
    public func lookup(_ key: CacheKey, inlineBodyLimit: Int, claimingFlight claim: CacheFlightClaim) async throws -> CacheLookup {
        try await lookup(key, inlineBodyLimit: inlineBodyLimit)
    }

    /// None: a storage of one process keeps no flights.
    public func claimFlight(of key: CacheKey, _ claim: CacheFlightClaim) async throws -> CacheFlightTurn? { nil }

    /// False: a storage of one process keeps no flights.
    public func isFlightUnderway(of key: CacheKey, byAnotherThan claimant: UUID) async throws -> Bool { false }

    /// Nothing to end: a storage of one process keeps no flights.
    public func endFlight(of key: CacheKey, claimant: UUID) async throws {}
}
