import Courier
import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// The cache's hold on its storage: every operation goes through ``run(_:_:)``, which counts a
/// failure and logs it once until the storage works again (then says so), so a storage only
/// keeps data and an outage costs one log line, not one a call. A call's operations also go
/// through the ``StorageBreaker``: after a failure they skip the storage for a while.
struct ObservedStorage: Sendable {
    let base: any CacheStorage
    let counters: CacheCounters
    let logger: Logger
    /// The secret list error texts are cleaned with.
    let redaction: Redaction
    /// The breaker a call's operations pass; nil for the app's own (a sign-out's clear is always tried).
    let breaker: StorageBreaker?
    /// The breaker's monotonic time.
    let uptime: @Sendable () -> Duration

    var maximumSize: Int { base.maximumSize }

    /// A storage the breaker rests throws this at once: the call goes on without the cache.
    struct Resting: Error {}

    /// Runs one storage operation, counting and logging its failure (a cancellation is neither);
    /// one that `reachesStorage` and works ends a run of failures (a key kept in memory doesn't).
    /// Skipped at once while the breaker rests the storage; only a lookup that works (`closes`)
    /// closes it. A failure of an operation a call waits for (`rests`) rests it, while a store's,
    /// written after the call returned, doesn't: a full disk costs no call anything, and must not
    /// keep the cache from what it holds.
    func run<T>(
        _ operation: String, reachesStorage: Bool = true, rests: Bool = true, closes: Bool = false, _ body: () async throws -> T
    ) async throws -> T {
        let admission = breaker?.admit(at: uptime()) ?? .closed
        if admission == .skip { throw Resting() }
        do {
            let value = try await body()
            if reachesStorage, counters.worked() {
                logger.notice("The cache's storage works again", metadata: ["operation": "\(operation)"])
            }
            if reachesStorage, closes {
                breaker?.worked()
            } else if admission == .probe {
                breaker?.released()
            }
            return value
        } catch is CancellationError {
            if admission == .probe { breaker?.released() }
            throw CancellationError()
        } catch {
            var rest: (coolOff: TimeInterval, opened: Bool)?
            if rests {
                rest = breaker?.failed(at: uptime(), probing: admission == .probe)
            } else if admission == .probe {
                breaker?.released()
            }
            if counters.failed() {
                logger.error(
                    "The cache's storage failed; calls go on without it until it works again",
                    metadata: [
                        "operation": "\(operation)", "error": "\(redaction.redact(text: String(describing: error)))",
                        "skippedForSeconds": "\(rest.map { Int($0.coolOff) } ?? 0)",
                    ])
            }
            throw error
        }
    }

    func secrets(alsoNamedBy client: Redaction?) async throws -> SecretValues {
        let key = try await run("secretKey", reachesStorage: false) { try await base.secretKey() }
        return SecretValues(hmac: HMAC(key: key), redaction: client.map(redaction.merging) ?? redaction)
    }

    /// Every stored variant of `key`, each with its body when it is at most `inlineBodyLimit` bytes.
    func variants(of key: CacheKey, inlineBodyLimit: Int = 64 * 1024) async throws -> [StoredVariant] {
        try await run("lookup", closes: true) { try await base.variants(of: key, inlineBodyLimit: inlineBodyLimit) }
    }

    /// ``variants(of:inlineBodyLimit:)`` with the partition's clear mark, in one round trip.
    func lookup(_ key: CacheKey, inlineBodyLimit: Int = 64 * 1024) async throws -> CacheLookup {
        try await run("lookup", closes: true) { try await base.lookup(key, inlineBodyLimit: inlineBodyLimit) }
    }

    /// ``lookup(_:inlineBodyLimit:)`` that, with a `claim`, claims the key's flight when nothing is stored.
    func lookup(_ key: CacheKey, claimingFlight claim: CacheFlightClaim?, inlineBodyLimit: Int = 64 * 1024) async throws -> CacheLookup {
        guard let claim else { return try await lookup(key, inlineBodyLimit: inlineBodyLimit) }
        return try await run("lookup", closes: true) {
            try await base.lookup(key, inlineBodyLimit: inlineBodyLimit, claimingFlight: claim)
        }
    }

    /// Claims a background revalidation's flight; nil (revalidate as one process would) while the
    /// breaker rests the storage: a step after the call returned neither waits nor probes. A
    /// storage of one process answers from memory, so neither this nor ending a flight says
    /// whether the storage works.
    func claimFlight(of key: CacheKey, _ claim: CacheFlightClaim) async -> CacheFlightTurn? {
        guard breaker?.isClosed ?? true else { return nil }
        return try? await run("flight", reachesStorage: false, rests: false) { try await base.claimFlight(of: key, claim) }
    }

    /// Whether another server's claim on `key` still holds, read by a call that waits for it.
    func isFlightUnderway(of key: CacheKey, byAnotherThan claimant: UUID) async throws -> Bool {
        try await run("flight") { try await base.isFlightUnderway(of: key, byAnotherThan: claimant) }
    }

    func endFlight(of key: CacheKey, claimant: UUID) async throws {
        try await run("flight", reachesStorage: false, rests: false) { try await base.endFlight(of: key, claimant: claimant) }
    }

    /// Nil at once while the breaker rests the storage (a store without a mark then loses to any
    /// clear noted): the read neither counts as a skipped operation nor takes the probe.
    func clearMark(of partition: String) async throws -> CacheClearMark? {
        guard breaker?.isClosed ?? true else { return nil }
        // A storage of one process answers from memory: that working says nothing of the storage.
        return try await run("lookup", reachesStorage: false) { try await base.clearMark(of: partition) }
    }

    func variants(for key: CacheKey) async throws -> [VariantMetadata] {
        try await run("lookup", closes: true) { try await base.variants(for: key) }
    }

    func body(of variant: VariantMetadata) async throws -> Data? {
        try await run("body") { try await base.body(of: variant) }
    }

    func body(of variant: VariantMetadata, offsets: Range<Int>) async throws -> HTTPBody? {
        try await run("body") { try await base.body(of: variant, offsets: offsets) }
    }

    func store(_ response: VariantToStore, body: CacheBody) async throws -> StoreOutcome {
        let outcome = try await run("store", rests: false) { try await base.store(response, body: body) }
        counters.add(evictions: outcome.evictedCount)
        return outcome
    }

    func updateHeaders(of variant: VariantMetadata, headers: HTTPFields, requestTime: Date, responseTime: Date) async throws -> Bool {
        try await run("update") {
            try await base.updateHeaders(of: variant, headers: headers, requestTime: requestTime, responseTime: responseTime)
        }
    }

    func recordUse(of variant: VariantMetadata) async {
        guard breaker?.isClosed ?? true else { return }
        await base.recordUse(of: variant)
    }

    func remove(_ variant: VariantMetadata) async throws -> Bool {
        try await run("remove") { try await base.remove(variant) }
    }

    func removeAll(_ scope: CacheScope) async throws -> Int {
        try await run("remove") { try await base.removeAll(scope) }
    }

    func totals() async throws -> CacheTotals {
        try await run("totals") { try await base.totals() }
    }

    func variants(in partition: String?) async throws -> [VariantMetadata] {
        try await run("variants") { try await base.variants(in: partition) }
    }
}
