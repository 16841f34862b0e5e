import CourierCache
import Foundation

/// The check of flights (see `CacheFlightClaim`), which only a storage many processes share keeps.
extension CacheStorageConformance {
    func flights(_ storage: any CacheStorage, _ r: Recorder) async throws {
        let key = Fixtures.key("flight", partition: "id:alice")
        let (first, second) = (CacheFlightClaim(claimant: UUID(), duration: .seconds(60)), CacheFlightClaim(claimant: UUID(), duration: .seconds(60)))
        guard let turn = try await storage.lookup(key, inlineBodyLimit: 0, claimingFlight: first).flight else {
            // A storage of one process: HTTPCache shares misses within the process only.
            r.expect(try await storage.claimFlight(of: key, first) == nil, "a storage whose lookups claim no flight claimed one directly")
            r.expect(try await storage.isFlightUnderway(of: key, byAnotherThan: UUID()) == false, "a storage whose lookups claim no flight has one underway")
            return
        }
        r.expect(turn, equals: .yours, "the turn of the first claim of a key nothing is stored under")
        r.expect(try await storage.lookup(key, inlineBodyLimit: 0, claimingFlight: second).flight, equals: .another, "another claimant's turn while the first claim holds")
        r.expect(try await storage.lookup(key, inlineBodyLimit: 0, claimingFlight: first).flight, equals: .yours, "the claimant's own turn, asked again")
        r.expect(try await storage.isFlightUnderway(of: key, byAnotherThan: second.claimant), "a claimed flight is not underway")
        r.expect(try await storage.isFlightUnderway(of: key, byAnotherThan: first.claimant) == false, "the claimant's own flight is underway for it to wait on")
        let bobs = Fixtures.key("flight", partition: "id:bob")
        r.expect(try await storage.lookup(bobs, inlineBodyLimit: 0, claimingFlight: second).flight, equals: .yours, "the turn for the same URL in another partition")
        try await storage.endFlight(of: key, claimant: second.claimant)
        r.expect(try await storage.isFlightUnderway(of: key, byAnotherThan: second.claimant), "another claimant ended the first's flight")
        try await Fixtures.put(storage, key, body: Data("fetched".utf8))
        r.expect(try await storage.isFlightUnderway(of: key, byAnotherThan: second.claimant) == false, "the flight still underway after its key was stored")
        r.expect(try await storage.lookup(key, inlineBodyLimit: 0, claimingFlight: second).flight == nil, "a lookup of a stored key claimed its flight")
        r.expect(try await storage.claimFlight(of: key, second), equals: .yours, "the turn of a direct claim of a stored key (a revalidation)")
        r.expect(try await storage.claimFlight(of: key, first), equals: .another, "another claimant's direct claim while it holds")
        try await storage.endFlight(of: key, claimant: second.claimant)
        r.expect(try await storage.isFlightUnderway(of: key, byAnotherThan: first.claimant) == false, "a flight its claimant ended is still underway")
        let brief = Fixtures.key("brief", partition: "id:alice")
        let short = CacheFlightClaim(claimant: UUID(), duration: .milliseconds(100))
        r.expect(try await storage.lookup(brief, inlineBodyLimit: 0, claimingFlight: short).flight, equals: .yours, "the turn of a short claim")
        try await Task.sleep(for: .milliseconds(300))
        r.expect(try await storage.isFlightUnderway(of: brief, byAnotherThan: first.claimant) == false, "a claim past its duration still holds")
        r.expect(try await storage.lookup(brief, inlineBodyLimit: 0, claimingFlight: first).flight, equals: .yours, "the turn of a new claimant once the last claim ran out")
    }
}
