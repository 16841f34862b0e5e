import Courier
import Foundation

/// A flight this process claimed in a storage many share (see ``CacheFlightClaim``), held by the
/// exchange that fetches the key: a store of the response ends it in the storage; otherwise the
/// exchange ends it, so the other servers waiting on it go to the origin without waiting out the claim.
final class HeldFlight: Sendable {
    private enum State {
        case held
        /// A store took it over: the storage ends it with the response, or the store's end does.
        case storing
        case ended
    }

    let key: CacheKey
    let claimant: UUID
    let storage: ObservedStorage
    private let state = Locked(State.held)

    init(key: CacheKey, claimant: UUID, storage: ObservedStorage) {
        self.key = key
        self.claimant = claimant
        self.storage = storage
    }

    /// A store of the response begins: the exchange no longer ends the flight.
    func storing() {
        state.withLock { if case .held = $0 { $0 = .storing } }
    }

    /// The store ended; `stored` says whether the response was stored (which ended the flight).
    func storeEnded(stored: Bool) async {
        let ends = state.withLock { state in
            defer { state = .ended }
            if case .ended = state { return false }
            return !stored
        }
        if ends { await end() }
    }

    /// The exchange has its answer: ends the flight unless a store took it over.
    func endUnlessStoring() async {
        let ends = state.withLock { state in
            guard case .held = state else { return false }
            state = .ended
            return true
        }
        if ends { await end() }
    }

    private func end() async {
        // Best effort, in a task of its own so that a cancelled call still ends it: a claim the
        // storage can't end runs out on its own.
        await Task { [storage, key, claimant] in try? await storage.endFlight(of: key, claimant: claimant) }.value
    }
}
