import CourierCache
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A storage that hands every operation to `base` unless it implements it itself: a test's wrapper
/// (a slow lookup) writes only what it changes.
protocol ForwardingStorage: CacheStorage {
    associatedtype Base: CacheStorage
    var base: Base { get }
}

extension ForwardingStorage {
    var maximumSize: Int { base.maximumSize }
    var sharing: CacheSharing { base.sharing }
    func secretKey() async throws -> [UInt8] { try await base.secretKey() }
    func variants(of key: CacheKey, inlineBodyLimit: Int) async throws -> [StoredVariant] {
        try await base.variants(of: key, inlineBodyLimit: inlineBodyLimit)
    }
    func lookup(_ key: CacheKey, inlineBodyLimit: Int) async throws -> CacheLookup { try await base.lookup(key, inlineBodyLimit: inlineBodyLimit) }
    func lookup(_ key: CacheKey, inlineBodyLimit: Int, claimingFlight claim: CacheFlightClaim) async throws -> CacheLookup {
        try await base.lookup(key, inlineBodyLimit: inlineBodyLimit, claimingFlight: claim)
    }
    func claimFlight(of key: CacheKey, _ claim: CacheFlightClaim) async throws -> CacheFlightTurn? { try await base.claimFlight(of: key, claim) }
    func isFlightUnderway(of key: CacheKey, byAnotherThan claimant: UUID) async throws -> Bool {
        try await base.isFlightUnderway(of: key, byAnotherThan: claimant)
    }
    func endFlight(of key: CacheKey, claimant: UUID) async throws { try await base.endFlight(of: key, claimant: claimant) }
    func clearMark(of partition: String) async throws -> CacheClearMark? { try await base.clearMark(of: partition) }
    func body(of variant: VariantMetadata, offsets: Range<Int>) async throws -> HTTPBody? { try await base.body(of: variant, offsets: offsets) }
    func store(_ response: VariantToStore, body: CacheBody) async throws -> StoreOutcome { try await base.store(response, body: body) }
    func updateHeaders(of variant: VariantMetadata, headers: HTTPFields, requestTime: Date, responseTime: Date) async throws -> Bool {
        try await base.updateHeaders(of: variant, headers: headers, requestTime: requestTime, responseTime: responseTime)
    }
    func recordUse(of variant: VariantMetadata) async { await base.recordUse(of: variant) }
    func remove(_ variant: VariantMetadata) async throws -> Bool { try await base.remove(variant) }
    func removeAll(_ scope: CacheScope) async throws -> Int { try await base.removeAll(scope) }
    func totals() async throws -> CacheTotals { try await base.totals() }
    func variants(in partition: String?) async throws -> [VariantMetadata] { try await base.variants(in: partition) }
}
