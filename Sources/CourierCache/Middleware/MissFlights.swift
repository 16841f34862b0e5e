import Courier

/// The misses of one key under way in this process: the first goes to the network, and the others
/// wait for its answer to be stored, then look again, so an entry many callers miss at once (a
/// popular one that just expired) costs the origin one request (RFC 9111 §4 lets a cache collapse
/// them). Keyed by the cache key, not the request: callers whose requests differ only in what the
/// key ignores (a request id, a trace header) share a flight.
final class MissFlights: Sendable {
    /// What a caller that missed does.
    enum Role {
        /// Goes to the network; ends the flight once its answer is stored (or not).
        case lead(Flight)
        /// Waits for another caller's flight.
        case follow(Flight)
    }

    private let flights = Locked<[CacheKey: Flight]>([:])

    /// Leads a new flight for `key`, or follows the one under way.
    func join(_ key: CacheKey) -> Role {
        flights.withLock { flights in
            if let flight = flights[key] { return .follow(flight) }
            let flight = Flight()
            flights[key] = flight
            return .lead(flight)
        }
    }

    /// Ends the flight `flight` leads for `key`: its followers look again.
    func end(_ flight: Flight, of key: CacheKey) {
        flights.withLock { flights in
            if flights[key] === flight { flights[key] = nil }
        }
        flight.end()
    }

    /// One miss on its way to the network, and the callers waiting for it.
    final class Flight: Sendable {
        private struct State {
            var ended = false
            var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
            var nextID = 0
        }

        private let state = Locked(State())

        fileprivate func end() {
            let waiters = state.withLock { state in
                state.ended = true
                defer { state.waiters = [:] }
                return Array(state.waiters.values)
            }
            for waiter in waiters { waiter.resume() }
        }

        /// Waits until the flight ends, at most `limit`, or the task is cancelled; whether it ended.
        func ended(within limit: Duration) async -> Bool {
            await withTaskGroup(of: Bool.self) { group in
                group.addTask { await self.ended() }
                group.addTask {
                    try? await Task.sleep(for: limit)
                    return false
                }
                let first = await group.next() ?? false
                group.cancelAll()
                return first
            }
        }

        /// Waits until the flight ends (true) or the task is cancelled (false).
        private func ended() async -> Bool {
            let id = state.withLock { state in
                state.nextID += 1
                return state.nextID
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    // Checked under the lock `onCancel` takes too, so neither an end nor a
                    // cancellation slips between.
                    let waits = state.withLock { state in
                        guard !state.ended, !Task.isCancelled else { return false }
                        state.waiters[id] = continuation
                        return true
                    }
                    if !waits { continuation.resume() }
                }
            } onCancel: {
                let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
                waiter?.resume()
            }
            return state.withLock { $0.ended }
        }
    }
}
