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
    ///
    /// The process's claim on the key (which any of its callers' lookups may have made or renewed,
    /// however late) is ended by the leader, after its flight ended, so every claim a caller made
    /// before it joined: by the put of its answer, or by the leader itself (``HeldFlight``).
    func sharingTheMiss(_ network: Network, turn: CacheFlightTurn?) async throws -> Answer {
        let misses = cache.coordination.misses
        switch misses.join(key) {
        case .lead(let flight):
            var leading = self
            // None from a storage that keeps no flights.
            let held = turn.map { _ in HeldFlight(key: key, claimant: cache.coordination.claimant, storage: storage) }
            leading.heldFlight = held
            let answer: Answer
            do {
                answer = try await leading.leadingTheMiss(network, turn: turn)
            } catch {
                misses.end(flight, of: key)
                await held?.endUnlessStoring()
                throw error
            }
            // Ended once the answer's write is under way: a lookup waits for it.
            misses.end(flight, of: key)
            await held?.endUnlessStoring()
            return answer
        case .follow(let flight):
            _ = await flight.ended(within: missWaitLimit)
            try Task.checkCancellation()
            return try await followHTTP(network, sharingMisses: false)
        }
    }

    /// The leader's part: the network, or, while another server holds the key's flight, that
    /// server's answer once it is stored (then as a follower would).
    private func leadingTheMiss(_ network: Network, turn: CacheFlightTurn?) async throws -> Answer {
        if turn == .another {
            await waitForFlightElsewhere()
            try Task.checkCancellation()
            return try await followHTTP(network, sharingMisses: false)
        }
        cache.counters.add(misses: 1)
        return try await followHTTPNetwork(network, request: request, hit: nil)
    }

    /// Waits while another server's claim on the key holds, at most ``missWaitLimit``, reading the
    /// storage at growing intervals (10 ms doubling to 100 ms); a failed read ends the wait. A claim
    /// of this process's own (a caller's late lookup made it) is no reason to wait.
    private func waitForFlightElsewhere() async {
        let deadline = ContinuousClock.now + missWaitLimit
        let intervals = ExponentialBackoff(initial: .milliseconds(10), maximum: .milliseconds(100))
        var attempt = 0
        while !Task.isCancelled {
            attempt += 1
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return }
            try? await Task.sleep(for: min(intervals.bound(afterAttempt: attempt), remaining))
            let underway = try? await storage.isFlightUnderway(of: key, byAnotherThan: cache.coordination.claimant)
            guard ContinuousClock.now < deadline, underway == true else { return }
        }
    }
}
