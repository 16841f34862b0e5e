import Courier
import Foundation
import HTTPTypes

/// Misses of one key at once, sent once (see ``MissFlights``).
extension CacheExchange {
    /// Whether this miss may wait for another's answer: a whole GET the cache could store (not a
    /// transfer, a range, or a request that asks for the origin's own answer with `no-cache` or
    /// keeps nothing with `no-store`).
    var sharesMisses: Bool {
        let directives = CacheControl(request: request.headerFields)
        return !isTransfer && !request.headerFields.contains(.range) && !directives.noCache && !directives.noStore
    }

    /// Goes to the network for a key nobody else in this process is fetching (a miss); otherwise
    /// waits for the caller who is (at most ``missWaitLimit``), then answers as the cache would now,
    /// without waiting again (counted then): from what that caller stored, or from the network when
    /// nothing usable came.
    func sharingTheMiss(_ network: Network) async throws -> Answer {
        let misses = cache.coordination.misses
        switch misses.join(key) {
        case .lead(let flight):
            cache.counters.add(misses: 1)
            // Ended once the answer's write is under way: a lookup waits for it.
            defer { misses.end(flight, of: key) }
            return try await followHTTPNetwork(network, request: request, hit: nil)
        case .follow(let flight):
            _ = await flight.ended(within: missWaitLimit)
            try Task.checkCancellation()
            return try await followHTTP(network, sharingMisses: false)
        }
    }
}
