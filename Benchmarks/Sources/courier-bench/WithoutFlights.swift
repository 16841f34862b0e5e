import CourierCache
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A storage as it is, but keeping no flights (`CacheFlightClaim`): misses are shared within the
/// process only, as before flights; the control of what flights cost a miss + store.
struct WithoutFlights: CacheStorage {
    let base: any CacheStorage

    var maximumSize: Int { base.maximumSize }
    var sharing: CacheSharing { base.sharing }
    func secretKey() async throws -> [UInt8] { try await base.secretKey() }
    func variants(of key: CacheKey, inlineBodyLimit: Int) async throws -> [StoredVariant] {
        try await base.variants(of: key, inlineBodyLimit: inlineBodyLimit)
    }
    func lookup(_ key: CacheKey, inlineBodyLimit: Int) async throws -> CacheLookup { try await base.lookup(key, inlineBodyLimit: inlineBodyLimit) }
    func clearMark(of partition: String) async throws -> CacheClearMark? { try await base.clearMark(of: partition) }
    func body(of variant: CachedMetadata, offsets: Range<Int>) async throws -> HTTPBody? { try await base.body(of: variant, offsets: offsets) }
    func store(_ response: StorableResponse, body: CacheBody) async throws -> StoreOutcome { try await base.store(response, body: body) }
    func updateHeaders(of variant: CachedMetadata, headers: HTTPFields, requestTime: Date, responseTime: Date) async throws -> Bool {
        try await base.updateHeaders(of: variant, headers: headers, requestTime: requestTime, responseTime: responseTime)
    }
    func recordUse(of variant: CachedMetadata) async { await base.recordUse(of: variant) }
    func remove(_ variant: CachedMetadata) async throws -> Bool { try await base.remove(variant) }
    func removeAll(_ scope: CacheScope) async throws -> Int { try await base.removeAll(scope) }
    func totals() async throws -> CacheTotals { try await base.totals() }
    func variants(in partition: String?) async throws -> [CachedMetadata] { try await base.variants(in: partition) }
}
