import Courier
import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// A stored response brought up to date: by a `304` in the call, or after it in the background.
extension CacheExchange {
    /// A 304: refresh the stored headers and serve the stored body (or the range of it the request
    /// asks for). A shared cache told the response is now `private` serves it to this caller and
    /// keeps it no longer.
    func revalidated(_ hit: StoredVariant, by notModified: Answer, requestTime: Date, network: Network) async throws -> Answer {
        let fields = notModified.response.headerFields
        let merged = hit.metadata.status == 206
            ? rules.mergeKeepingHeldRange(stored: hit.metadata.headers, notModified: fields)
            : rules.merge(stored: hit.metadata.headers, notModified: fields)
        var hit = hit
        if rules.sharedCacheMayKeep(merged) {
            _ = try? await storage.updateHeaders(of: hit.metadata, headers: merged, requestTime: requestTime, responseTime: cache.clock)
        } else {
            // Read before it goes, when this call may hold it; a body too large to is asked for again.
            if hit.body == nil, !isTransfer, hit.metadata.bodySize <= bodyLimit { hit.body = try? await hit.loadBody(from: storage) }
            _ = try? await storage.remove(hit.metadata)
        }
        let head = HTTPResponse(status: .init(code: hit.metadata.status), headerFields: merged)
        guard let answer = rules.storedAnswer(for: request, from: head, bodySize: hit.metadata.bodySize),
              let served = try? await answering(answer, head, hit)
        else {
            // The entry vanished meanwhile (evicted, or replaced by another process): ask again, unconditionally.
            return try await networkAndStore(network, fallback: false).after(notModified)
        }
        cache.counters.add(hits: 1)
        return notModified.replacing(with: served, source: .revalidated)
    }

    /// ``revalidateInBackground(_:)``, unless another server sharing the storage holds the key's
    /// flight (it revalidates it for all): one request to the origin per stale key across a fleet.
    func revalidateOnceAcrossTheFleet(_ network: Network) async {
        let claim = flightClaim
        let turn = await storage.claimFlight(of: key, claim)
        guard turn != .another else { return }
        _ = try? await revalidateInBackground(network)
        // A stored 200 ended it already; a 304 or a failure did not.
        if turn == .yours { try? await storage.endFlight(of: key, claimant: claim.claimant) }
    }

    /// The background half of stale-while-revalidate: a conditional request that refreshes the
    /// entry (304) or replaces it (200). A failure is logged and leaves the entry as it was.
    func revalidateInBackground(_ network: Network) async throws -> Answer {
        let hit = try await lookup().hit
        let outgoing = hit.map { rules.conditionalRequest(for: request, stored: $0.metadata.storedResponse) } ?? request
        let requestTime = cache.clock
        let answer: Answer
        do {
            answer = try await network(outgoing)
        } catch {
            logFailedRevalidation(error)
            throw error
        }
        if let hit, answer.response.status == .notModified {
            return try await revalidated(hit, by: answer, requestTime: requestTime, network: network)
        }
        guard answer.response.status.kind != .serverError else {
            logFailedRevalidation(CourierError(.unacceptableStatus, detail: "The server answered \(answer.response.status.code)"))
            return answer
        }
        return try await storeIfAllowed(answer, requestTime: requestTime, explicitPolicy: false)
    }

    private func logFailedRevalidation(_ error: any Error) {
        cache.logger.warning(
            "Background revalidation failed; the stored response is kept",
            metadata: ["url": loggedURL, "error": logged(error)])
    }
}
