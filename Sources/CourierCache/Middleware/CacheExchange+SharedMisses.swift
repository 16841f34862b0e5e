import Courier
import Foundation
import HTTPTypes

/// Misses of one key at once, sent once: within the process (see ``MissFlights``), and across the
/// processes that share a storage that keeps flights (see ``CacheFlightClaim``).
extension CacheExchange {
    /// Whether this miss may wait for another's answer: a whole GET the cache could store (not a
    /// transfer, a range, or a request that asks for the origin's own answer with `no-cache`, keeps
    /// nothing with `no-store`, or takes only what is stored with `only-if-cached`).
    var sharesMisses: Bool {
        let directives = CacheControl(request: request.headerFields)
        return !isTransfer && !request.headerFields.contains(.range) && !directives.noCache && !directives.noStore
            && !directives.onlyIfCached
    }

    /// The claim a lookup of a miss this exchange shares makes, held for as long as the call may take.
    var flightClaim: CacheFlightClaim {
        CacheFlightClaim(claimant: cache.coordination.claimant, duration: missWaitLimit)
    }

    /// Goes to the network for a key nobody else in this process is fetching (a miss), unless
    /// another server holds its flight (`turn`); otherwise waits for the caller who is (at most
    /// ``missWaitLimit``), then answers as the cache would now, without waiting again (counted
    /// then): from what that caller stored, or from the network when nothing usable came.
    func sharingTheMiss(_ network: Network, turn: CacheFlightTurn?) async throws -> Answer {
        let misses = cache.coordination.misses
        switch misses.join(key) {
        case .lead(let flight):
            // Ended once the answer's write is under way: a lookup waits for it.
            defer { misses.end(flight, of: key) }
            if turn == .another {
                await waitForFlightElsewhere()
                try Task.checkCancellation()
                return try await followHTTP(network, sharingMisses: false)
            }
            cache.counters.add(misses: 1)
            guard turn == .yours else { return try await followHTTPNetwork(network, request: request, hit: nil) }
            var leading = self
            let held = HeldFlight(key: key, claimant: cache.coordination.claimant, storage: storage)
            leading.heldFlight = held
            do {
                let answer = try await leading.followHTTPNetwork(network, request: request, hit: nil)
                await held.endUnlessStoring()
                return answer
            } catch {
                await held.endUnlessStoring()
                throw error
            }
        case .follow(let flight):
            _ = await flight.ended(within: missWaitLimit)
            // This caller's lookup claimed the key for the process, maybe after the leader ended
            // its flight (a slow lookup): unless a new flight of the key runs, end that claim, or
            // the fleet would wait for it until it runs out.
            if turn == .yours, !misses.isUnderway(key) {
                await HeldFlight(key: key, claimant: cache.coordination.claimant, storage: storage).endUnlessStoring()
            }
            try Task.checkCancellation()
            return try await followHTTP(network, sharingMisses: false)
        }
    }

    /// Waits while another server's claim on the key holds, at most ``missWaitLimit``, reading the
    /// storage at growing intervals (10 ms doubling to 100 ms); a failed read ends the wait.
    private func waitForFlightElsewhere() async {
        let deadline = ContinuousClock.now + missWaitLimit
        let intervals = ExponentialBackoff(initial: .milliseconds(10), maximum: .milliseconds(100))
        var attempt = 0
        while !Task.isCancelled {
            attempt += 1
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return }
            try? await Task.sleep(for: min(intervals.bound(afterAttempt: attempt), remaining))
            guard ContinuousClock.now < deadline, (try? await storage.isFlightUnderway(of: key)) == true else { return }
        }
    }
}
