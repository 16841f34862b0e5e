import CourierCache
import CourierCacheTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// What every `CacheStorage` does, run against each (see `StorageKind`) through the suite an
/// author of another storage runs (`CacheStorageConformance`): round trips, variants,
/// replacement, header updates, removal by scope, partitions, eviction by use, size limits, file
/// bodies, streamed slices and concurrent use. What only SQLite does (persistence, damage
/// recovery, several processes) is tested in `Store/`.
@Suite struct StorageConformanceTests {
    @Test(arguments: StorageKind.allCases, CacheStorageConformance.Check.allCases)
    func everyStorageConforms(kind: StorageKind, check: CacheStorageConformance.Check) async {
        let conformance = CacheStorageConformance { maximumSize, use in try await kind.with(maximumSize: maximumSize, use) }
        let violations = await conformance.violations(of: check)
        #expect(violations.isEmpty, "\(violations.map(\.message))")
    }

    /// The checks find what they name: each flaw of a storage is reported by the check that
    /// covers it, and by no check that doesn't.
    @Test(arguments: FlawedStorage.Flaw.allCases)
    func aFlawedStorageFailsTheCheckThatCoversTheFlaw(flaw: FlawedStorage.Flaw) async {
        let conformance = CacheStorageConformance { maximumSize, use in
            try await use(FlawedStorage(flaw: flaw, maximumSize: maximumSize))
        }
        let failed = Set(await conformance.violations().map(\.check))
        #expect(failed.contains(flaw.caughtBy), "found: \(failed)")
        #expect(!failed.contains(.emptyBody), "a flaw that isn't about empty bodies doesn't fail that check")
    }

    @Test func aStorageThatThrowsIsAViolationNamingTheError() async {
        struct Down: Error {}
        let conformance = CacheStorageConformance { _, _ in throw Down() }
        let violations = await conformance.violations(of: .roundTrip)
        #expect(violations.count == 1)
        #expect(violations.first?.description.contains("roundTrip: threw") == true)
        #expect(violations.first?.message.contains("Down") == true)
    }
}

/// The in-memory storage with one flaw, to prove the conformance checks can fail.
struct FlawedStorage: CacheStorage {
    enum Flaw: String, CaseIterable, Sendable {
        /// Keeps only the last of repeated header fields.
        case dropsRepeatedFields
        /// Clears every partition when asked to clear one.
        case clearsEveryPartition
        /// Keeps a replaced variant's id.
        case reusesIDs
        /// Never evicts.
        case ignoresItsLimit

        var caughtBy: CacheStorageConformance.Check {
            switch self {
            case .dropsRepeatedFields: .roundTrip
            case .clearsEveryPartition: .partitions
            case .reusesIDs: .replacement
            case .ignoresItsLimit: .oldestFirstEviction
            }
        }
    }

    let flaw: Flaw
    let inner: InMemoryCacheStorage

    init(flaw: Flaw, maximumSize: Int) {
        self.flaw = flaw
        inner = InMemoryCacheStorage(maximumSize: flaw == .ignoresItsLimit ? .max : maximumSize)
    }

    var maximumSize: Int { inner.maximumSize }
    func secretKey() async throws -> [UInt8] { try await inner.secretKey() }

    func variants(of key: CacheKey, inlineBodyLimit: Int) async throws -> [StoredVariant] {
        try await inner.variants(of: key, inlineBodyLimit: inlineBodyLimit).map { variant in
            guard flaw == .reusesIDs else { return variant }
            return StoredVariant(metadata: Self.renumbered(variant.metadata), body: variant.body)
        }
    }

    func body(of variant: VariantMetadata, offsets: Range<Int>) async throws -> HTTPBody? {
        let variants = try await inner.variants(of: variant.key, inlineBodyLimit: -1).map(\.metadata)
        let real = flaw == .reusesIDs ? variants.first { $0.varySelection == variant.varySelection } : variant
        guard let real else { return nil }
        return try await inner.body(of: real, offsets: offsets)
    }

    func store(_ response: VariantToStore, body: CacheBody) async throws -> StoreOutcome {
        var response = response
        if flaw == .dropsRepeatedFields {
            var kept = HTTPFields()
            for field in response.headers { kept[field.name] = field.value }
            response.headers = kept
        }
        var outcome = try await inner.store(response, body: body)
        if flaw == .reusesIDs { outcome.stored = outcome.stored.map(Self.renumbered) }
        return outcome
    }

    func updateHeaders(of variant: VariantMetadata, headers: HTTPFields, requestTime: Date, responseTime: Date) async throws -> Bool {
        try await inner.updateHeaders(of: variant, headers: headers, requestTime: requestTime, responseTime: responseTime)
    }

    func recordUse(of variant: VariantMetadata) async { await inner.recordUse(of: variant) }
    func remove(_ variant: VariantMetadata) async throws -> Bool { try await inner.remove(variant) }

    func removeAll(_ scope: CacheScope) async throws -> Int {
        if flaw == .clearsEveryPartition, case .partition = scope { return try await inner.removeAll(.everything) }
        return try await inner.removeAll(scope)
    }

    func totals() async throws -> CacheTotals { try await inner.totals() }
    func variants(in partition: String?) async throws -> [VariantMetadata] { try await inner.variants(in: partition) }

    /// Every variant of a key under one id, as a storage that reuses ids would give them.
    private static func renumbered(_ variant: VariantMetadata) -> VariantMetadata {
        VariantMetadata(
            id: 1, key: variant.key, varySelection: variant.varySelection, status: variant.status, headers: variant.headers,
            requestTime: variant.requestTime, responseTime: variant.responseTime, bodySize: variant.bodySize,
            storedAt: variant.storedAt, lastAccess: variant.lastAccess)
    }
}
