import Courier
import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// A stored response brought up to date: by a `304` in the call, or after it in the background.
extension CacheExchange {
    /// A 304: refresh the stored headers and serve the stored body (or the range of it the request asks for).
    func revalidated(_ hit: Hit, by notModified: HTTPResponse, requestTime: Date, network: Network) async throws -> (HTTPResponse, HTTPBody?) {
        let merged = hit.metadata.status == 206
            ? rules.mergeKeepingHeldRange(stored: hit.metadata.headers, notModified: notModified.headerFields)
            : rules.merge(stored: hit.metadata.headers, notModified: notModified.headerFields)
        let responseTime = cache.clock
        _ = try? await storage.updateHeaders(of: hit.metadata, headers: merged, requestTime: requestTime, responseTime: responseTime)
        let head = HTTPResponse(status: .init(code: hit.metadata.status), headerFields: merged)
        guard let answer = rules.storedAnswer(for: request, from: head, bodySize: hit.metadata.bodySize),
              let served = try? await answering(answer, head, hit)
        else {
            // The entry vanished meanwhile (evicted, or replaced by another process): ask again, unconditionally.
            return try await networkAndStore(network, fallback: false)
        }
        cache.counters.add(hits: 1)
        source.withLock { $0 = .revalidated }
        return served
    }

    /// The background half of stale-while-revalidate: a conditional request that refreshes the
    /// entry (304) or replaces it (200). A failure is logged and leaves the entry as it was.
    func revalidateInBackground(_ network: Network) async throws -> (HTTPResponse, HTTPBody?) {
        let hit = try await lookup()
        let outgoing = hit.map { rules.conditionalRequest(for: request, stored: $0.metadata.storedResponse) } ?? request
        let requestTime = cache.clock
        let response: HTTPResponse
        let body: HTTPBody?
        do {
            (response, body) = try await network(outgoing)
        } catch {
            logFailedRevalidation(error)
            throw error
        }
        if let hit, response.status == .notModified {
            return try await revalidated(hit, by: response, requestTime: requestTime, network: network)
        }
        guard response.status.kind != .serverError else {
            logFailedRevalidation(CourierError(.unacceptableStatus, detail: "The server answered \(response.status.code)"))
            return (response, body)
        }
        return try await storeIfAllowed(response, body, requestTime: requestTime, explicitPolicy: false)
    }

    private func logFailedRevalidation(_ error: any Error) {
        cache.logger.warning(
            "Background revalidation failed; the stored response is kept",
            metadata: ["url": loggedURL, "error": logged(error)])
    }
}
