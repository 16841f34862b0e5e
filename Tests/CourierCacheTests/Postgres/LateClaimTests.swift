import Courier
import CourierAsyncHTTPClient
import CourierCache
import CourierCachePostgres
import CourierTestSupport
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import PostgresNIO
import Testing

/// A caller whose lookup claims the key for its server after that server's fetcher has ended the
/// flight (its lookup was slow: a connection of the pool being opened, a loaded machine), and
/// then waits for the fetcher within the process: its claim is ended too, or the rest of the
/// fleet would wait for it until it ran out.
@Suite(.serialized, .enabled(if: ThrowawayPostgres.isAvailable, "PostgreSQL is not installed"))
struct LateClaimTests {
    /// The storage, with the second lookup that claims a flight held until `release` is raised.
    struct SlowSecondClaim: ForwardingStorage {
        let base: PostgresCacheStorage
        let claims = Level()
        let release = Level()

        func lookup(_ key: CacheKey, inlineBodyLimit: Int, claimingFlight claim: CacheFlightClaim) async throws -> CacheLookup {
            if claims.add() == 2 { _ = await release.wait(until: 1, within: .seconds(60)) }
            return try await base.lookup(key, inlineBodyLimit: inlineBodyLimit, claimingFlight: claim)
        }
    }

    @Test(.timeLimit(.minutes(2))) func aClaimMadeAfterTheFetcherEndedItsFlightIsEndedToo() async throws {
        let fleet = try await FleetTests.Fleet.make()
        defer { Task { await fleet.tearDown() } }
        let (arrived, first, second) = (Level(), Level(), Level())
        fleet.origin.route("GET", "/live") { _ in
            switch arrived.add() {
            case 1: _ = await first.wait(until: 1, within: .seconds(60))
            case 2: _ = await second.wait(until: 1, within: .seconds(60))
            default: break
            }
            return .text("live", headers: [MockHeader("Cache-Control", "no-store")])
        }
        // Server 1 (the fleet's cache) fetches; server 2's first caller waits for it, its second
        // caller's lookup is slow.
        let slow = SlowSecondClaim(base: PostgresCacheStorage(client: fleet.client, maximumSize: 50 << 20, timeout: .seconds(30)))
        let server2 = Client(baseURL: fleet.origin.baseURL, transport: AsyncHTTPClientTransport(), middlewares: [HTTPCache(storage: slow)])
        let fetcher = Task { try await fleet.client(for: "-").response(for: FleetMember.Page(path: "/live")) }
        #expect(await arrived.wait(until: 1, within: .seconds(60)))
        // Request ids of their own: identical requests would be one call of the client.
        let waiting = Task { try await server2.response(for: FleetMember.Page(path: "/live", requestID: "waiting")) }
        let late = Task { try await server2.response(for: FleetMember.Page(path: "/live", requestID: "late")) }
        #expect(await slow.claims.wait(until: 2, within: .seconds(60)), "both of server 2's lookups began")
        first.raise(to: 1)
        #expect(try await fetcher.value.source == .network)
        #expect(await arrived.wait(until: 2, within: .seconds(60)), "server 2's first caller went to the origin itself")
        slow.release.raise(to: 1)
        // Its claim made, the late caller follows the first caller, which the origin still holds.
        #expect(try await eventually(within: .seconds(60)) { try await Self.flights(fleet) == 1 })
        try await Task.sleep(for: .milliseconds(200))
        second.raise(to: 1)
        #expect(try await waiting.value.source == .network)
        #expect(try await late.value.source == .network)
        #expect(try await Self.flights(fleet) == 0, "the late claim was left for the fleet to wait out")
    }

    static func flights(_ fleet: FleetTests.Fleet) async throws -> Int {
        for try await count in try await fleet.client.query("SELECT count(*) FROM courier_cache_flight").decode(Int64.self) {
            return Int(count)
        }
        return 0
    }
}
