/// Where a partition's clears stood when a storage was read, before a request was sent: a store
/// of that request's response loses to any clear of the partition since, such as a user's sign-out
/// on another server of a fleet, whatever the servers' clocks say.
///
/// A storage that many processes share (`PostgresCacheStorage`) numbers each partition's clears
/// and hands the number out with each lookup (``CacheStorage/lookup(_:inlineBodyLimit:)``) and
/// before a request sent without one (``CacheStorage/clearMark(of:)``). ``HTTPCache`` carries it to
/// ``CacheStorage/store(_:body:)`` in ``VariantToStore/clearMark``. A storage of one process has
/// none: ``HTTPCache`` orders its clears and stores itself.
public struct CacheClearMark: Sendable, Hashable {
    /// The partition's clear generation: higher after each clear, never given twice.
    public var generation: Int64

    /// Creates a mark at a partition's clear generation.
    public init(generation: Int64) {
        self.generation = generation
    }
}

/// A lookup's answer, read in one round trip: a key's stored variants, where its partition's
/// clears stood, and whose turn it is to fetch the key when nothing was stored.
public struct CacheLookup: Sendable, Hashable {
    /// Every stored variant of the key, oldest first (see ``CacheStorage/variants(of:inlineBodyLimit:)``).
    public var variants: [StoredVariant]
    /// The key's partition's clear mark; nil from a storage that keeps none.
    public var clearMark: CacheClearMark?
    /// Whose turn it is to fetch the key, when the lookup claimed its flight (see
    /// ``CacheFlightClaim``); nil when it didn't: something is stored, no claim was asked, or the
    /// storage keeps no flights.
    public var flight: CacheFlightTurn?

    /// Creates a lookup's answer.
    public init(variants: [StoredVariant], clearMark: CacheClearMark? = nil, flight: CacheFlightTurn? = nil) {
        self.variants = variants
        self.clearMark = clearMark
        self.flight = flight
    }
}

extension CacheStorage {
    /// The variants, with no clear mark: a storage of one process keeps none.
    public func lookup(_ key: CacheKey, inlineBodyLimit: Int) async throws -> CacheLookup {
        CacheLookup(variants: try await variants(of: key, inlineBodyLimit: inlineBodyLimit))
    }

    /// None: a storage of one process keeps no clear marks.
    public func clearMark(of partition: String) async throws -> CacheClearMark? { nil }
}
