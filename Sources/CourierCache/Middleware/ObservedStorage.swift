import Courier
import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// The cache's hold on its storage: every operation goes through ``run(_:_:)``, which counts a
/// failure and logs it once until the storage works again (then says so), so a storage only
/// keeps data and an outage costs one log line, not one a call.
struct ObservedStorage: Sendable {
    let base: any CacheStorage
    let counters: CacheCounters
    let logger: Logger
    /// The secret list error texts are cleaned with.
    let redaction: Redaction

    var maximumSize: Int { base.maximumSize }

    /// Runs one storage operation, counting and logging its failure (a cancellation is neither);
    /// one that `reachesStorage` and works ends a run of failures (a key kept in memory doesn't).
    func run<T>(_ operation: String, reachesStorage: Bool = true, _ body: () async throws -> T) async throws -> T {
        do {
            let value = try await body()
            if reachesStorage, counters.worked() {
                logger.notice("The cache's storage works again", metadata: ["operation": "\(operation)"])
            }
            return value
        } catch {
            if !(error is CancellationError), counters.failed() {
                logger.error(
                    "The cache's storage failed; calls go on without it until it works again",
                    metadata: ["operation": "\(operation)", "error": "\(redaction.redact(text: String(describing: error)))"])
            }
            throw error
        }
    }

    func secrets(alsoNamedBy client: Redaction?) async throws -> SecretValues {
        let key = try await run("secretKey", reachesStorage: false) { try await base.secretKey() }
        return SecretValues(hmac: HMAC(key: key), redaction: client.map(redaction.merging) ?? redaction)
    }

    func lookup(_ key: CacheKey, select: ([CachedMetadata]) -> CachedMetadata?) async throws -> StoredVariant? {
        try await run("lookup") { try await base.lookup(key, select: select) }
    }

    func variants(for key: CacheKey) async throws -> [CachedMetadata] {
        try await run("lookup") { try await base.variants(for: key) }
    }

    func body(of variant: CachedMetadata) async throws -> Data? {
        try await run("body") { try await base.body(of: variant) }
    }

    func body(of variant: CachedMetadata, offsets: Range<Int>) async throws -> HTTPBody? {
        try await run("body") { try await base.body(of: variant, offsets: offsets) }
    }

    func store(_ response: StorableResponse, body: CacheBody) async throws -> StoreOutcome {
        let outcome = try await run("store") { try await base.store(response, body: body) }
        counters.add(evictions: outcome.evictedCount)
        return outcome
    }

    func updateHeaders(of variant: CachedMetadata, headers: HTTPFields, requestTime: Date, responseTime: Date) async throws -> Bool {
        try await run("update") {
            try await base.updateHeaders(of: variant, headers: headers, requestTime: requestTime, responseTime: responseTime)
        }
    }

    func recordUse(of variant: CachedMetadata) async {
        await base.recordUse(of: variant)
    }

    func remove(_ variant: CachedMetadata) async throws -> Bool {
        try await run("remove") { try await base.remove(variant) }
    }

    func removeAll(_ scope: CacheScope) async throws -> Int {
        try await run("remove") { try await base.removeAll(scope) }
    }

    func totals() async throws -> CacheTotals {
        try await run("totals") { try await base.totals() }
    }

    func entries(in partition: String?) async throws -> [CachedMetadata] {
        try await run("entries") { try await base.entries(in: partition) }
    }
}
