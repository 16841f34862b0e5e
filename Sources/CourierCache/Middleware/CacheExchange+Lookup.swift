import Courier
import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// Finding a stored response for an exchange and serving it.
extension CacheExchange {
    /// The stored variant matching this request's `Vary` fields (with its body when small), or nil;
    /// when none matches, the stored variants are `unselected` (to validate or complete). A broken store is a miss.
    func lookup() async throws -> (hit: StoredVariant?, unselected: [VariantMetadata]) {
        let (hit, unselected, _) = try await lookup(claimingFlight: nil)
        return (hit, unselected)
    }

    /// ``lookup()`` that, with a `claim`, claims the key's flight when nothing is stored: whose
    /// turn it is to fetch it (nil when nothing was claimed).
    func lookup(claimingFlight claim: CacheFlightClaim?) async throws -> (hit: StoredVariant?, unselected: [VariantMetadata], flight: CacheFlightTurn?) {
        // Read after this key's pending writes, while the storage works: a resting one is skipped
        // at once below, and its writes must not hold the call meanwhile.
        if cache.coordination.breaker.isClosed {
            await cache.coordination.writes.wait(for: key)
        } else {
            telemetry.count(MetricName.cacheStorageSkipped, [])
        }
        guard let found = try? await storage.lookup(key, claimingFlight: claim) else { return (nil, [], nil) }
        clearMarks.noteRead(found.clearMark)
        let variants = found.variants
        let stored = variants.map(\.metadata)
        guard let chosen = rules.selectVariant(for: request, among: stored),
              let variant = variants.last(where: { $0.metadata.id == chosen.id })
        else { return (nil, stored, found.flight) }
        return (variant, [], found.flight)
    }

    /// The stored response with its body — or, for a `Range` request, the `206` or `416` the cache
    /// builds from it — or nil when the body is gone or the stored response can't answer the request.
    func serve(_ hit: StoredVariant, as source: ResponseSource) async throws -> Answer? {
        guard let answer = rules.storedAnswer(for: request, from: hit.metadata.response, bodySize: hit.metadata.bodySize),
              let served = try? await answering(answer, rules.servedResponse(for: hit.metadata.storedResponse, now: cache.clock), hit)
        else { return nil }
        await storage.recordUse(of: hit.metadata)
        cache.counters.add(hits: 1)
        var cached = served
        cached.source = source
        return cached
    }

    func canServeStaleOnError(_ hit: StoredVariant) -> Bool {
        rules.canServeStaleOnError(
            stored: hit.metadata.storedResponse, now: cache.clock,
            requestDirectives: CacheControl(request: request.headerFields), extraAllowance: offlineAllowance
        )
    }

    func staleFallback() async throws -> Answer? {
        guard let hit = try await lookup().hit, canServeStaleOnError(hit) else { return nil }
        return try await serve(hit, as: .stale)
    }
}
