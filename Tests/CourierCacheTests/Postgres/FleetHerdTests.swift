import Courier
import CourierAsyncHTTPClient
import CourierCache
import CourierTestSupport
import CourierTesting
import Foundation
import PostgresNIO
import Testing

/// Three servers of a fleet (this process and two peers) miss one key at once, eight callers each,
/// every caller with a request id of its own: one of them fetches it for all (its flight, see
/// `CacheFlightClaim`), and the others take its answer from the database.
@Suite(.serialized, .enabled(if: ThrowawayPostgres.isAvailable, "PostgreSQL is not installed"))
struct FleetHerdTests {
    typealias Page = FleetMember.Page

    /// A herd of `callers` per server on `path` of `fleet`, released at once: what each caller got
    /// (`source=body`), this process's first, and the longest any caller took after the release.
    static func herd(on fleet: FleetTests.Fleet, path: String, callers: Int = 8) async throws -> (got: [String], slowest: Int) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-herd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let go = folder.appendingPathComponent("go").path
        let outputs = (0..<2).map { folder.appendingPathComponent("peer-\($0)").path }
        let peers = try outputs.map { output in
            try ChildProcess(
                FleetTests.Fleet.peerExecutable,
                ["\(fleet.postgres.port)", fleet.database, fleet.origin.baseURL.absoluteString, "herd", path, "-", "\(callers)", go],
                output: output)
        }
        // Released once both peers are ready, so that the three servers miss together.
        for output in outputs {
            let since = ContinuousClock.now
            while !((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").hasPrefix("ready"),
                  ContinuousClock.now - since < .seconds(60)
            {
                try await Task.sleep(for: .milliseconds(5))
            }
        }
        #expect(FileManager.default.createFile(atPath: go, contents: nil))
        let (client, released) = (fleet.client(for: "-"), ContinuousClock.now)
        let here = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<callers {
                group.addTask {
                    let response = try await client.response(for: Page(path: EndpointPath(stringLiteral: path), requestID: "here-\(index)"))
                    let took = (ContinuousClock.now - released).components
                    let milliseconds = took.seconds * 1000 + took.attoseconds / 1_000_000_000_000_000
                    return "\(response.source)=\(String(decoding: response.value, as: UTF8.self))@\(milliseconds)ms"
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        await client.waitForBackgroundWork()
        var got = here
        for (peer, output) in zip(peers, outputs) {
            let status = await peer.exitCode()
            let printed = ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n")
            #expect(status == 0, "the peer printed \(printed)")
            got += printed.dropFirst().flatMap { $0.split(separator: " ").map(String.init) }
        }
        // Each answer's time since the release is printed, not tested (wall time never gates a test).
        let slowest = got.compactMap { $0.split(separator: "@").last.flatMap { Int($0.dropLast(2)) } }.max() ?? 0
        return (got.map { String($0.split(separator: "@").first ?? "") }, slowest)
    }

    func flights(of fleet: FleetTests.Fleet) async throws -> Int {
        for try await count in try await fleet.client.query("SELECT count(*) FROM courier_cache_flight").decode(Int64.self) {
            return Int(count)
        }
        return 0
    }

    /// 3 servers × 8 callers, a 400 ms origin: one GET, every caller gets its answer, and the
    /// flight ended with the store.
    @Test(.timeLimit(.minutes(2))) func threeServersMissingOneKeyCostTheOriginOneRequest() async throws {
        let fleet = try await FleetTests.Fleet.make()
        defer { Task { await fleet.tearDown() } }
        fleet.origin.route("GET", "/popular") { _ in
            try? await Task.sleep(for: .milliseconds(400))
            return .text("popular", headers: [MockHeader("Cache-Control", "max-age=600")])
        }
        let (got, slowest) = try await Self.herd(on: fleet, path: "/popular")
        print("herd: 24 callers on 3 servers, a 400 ms origin: \(fleet.origin.requestCount("/popular")) origin GET; the last answer \(slowest) ms after the release")
        #expect(got.count == 24)
        #expect(got.allSatisfy { $0.hasSuffix("=popular") }, "\(got)")
        #expect(fleet.origin.requestCount("/popular") == 1, "one server fetched it for the fleet")
        #expect(got.filter { $0.hasPrefix("network=") }.count == 1)
        #expect(try await flights(of: fleet) == 0, "the store ended the flight")
    }

    /// A stale entry a herd reads with `stale-while-revalidate`: every caller gets it at once,
    /// and one server revalidates it for the fleet (its flight), not one per server. The answer
    /// it brings is fresh, so a caller slow to arrive (a loaded machine) gets that instead.
    @Test(.timeLimit(.minutes(2))) func aStaleEntryIsRevalidatedOnceForTheFleet() async throws {
        let fleet = try await FleetTests.Fleet.make()
        defer { Task { await fleet.tearDown() } }
        let served = Level()
        fleet.origin.route("GET", "/feed") { _ in
            let count = served.add()
            guard count > 1 else {
                return .text("v1", headers: [MockHeader("Cache-Control", "max-age=0, stale-while-revalidate=600")])
            }
            try? await Task.sleep(for: .milliseconds(400))
            return .text("v\(count)", headers: [MockHeader("Cache-Control", "max-age=600")])
        }
        _ = try await fleet.client(for: "-").response(for: Page(path: "/feed"))
        await fleet.cache.flush()
        let (got, _) = try await Self.herd(on: fleet, path: "/feed")
        #expect(got.count == 24 && got.allSatisfy { $0 == "stale=v1" || $0 == "cache=v2" }, "\(got)")
        #expect(got.contains("stale=v1"))
        #expect(fleet.origin.requestCount("/feed") == 2, "the first GET, and one revalidation for the fleet")
        #expect(try await flights(of: fleet) == 0)
    }

    /// The server fetching a key for the fleet is killed on the way: another server's caller
    /// waits for its flight at most its own timeout (3 s here, while the dead claim holds the 60 s of the peer's),
    /// then asks the origin itself and gets its answer.
    @Test(.timeLimit(.minutes(2))) func aServerKilledWhileItFetchesCostsTheOthersAtMostTheirTimeout() async throws {
        let fleet = try await FleetTests.Fleet.make()
        defer { Task { await fleet.tearDown() } }
        let (arrived, gate) = (Level(), Level())
        fleet.origin.route("GET", "/slow") { _ in
            if arrived.add() == 1 { _ = await gate.wait(until: 1, within: .seconds(60)) }
            return .text("slow", headers: [MockHeader("Cache-Control", "max-age=600")])
        }
        defer { gate.raise(to: 1) }
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("courier-peer-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let peer = try ChildProcess(
            FleetTests.Fleet.peerExecutable,
            ["\(fleet.postgres.port)", fleet.database, fleet.origin.baseURL.absoluteString, "get", "/slow", "-"], output: output)
        #expect(await arrived.wait(until: 1, within: .seconds(60)), "the peer claimed the flight and asked the origin")
        kill(peer.pid, SIGKILL)
        #expect(await peer.exitCode() == nil)
        #expect(try await flights(of: fleet) == 1, "its claim outlives it")
        let client = Client(
            baseURL: fleet.origin.baseURL, transport: AsyncHTTPClientTransport(), middlewares: [fleet.cache],
            configure: { $0.timeout = .seconds(3) })
        let call = Task { try await client.response(for: Page(path: "/slow")) }
        // Well short of the dead claim's 60 s: the caller's own timeout bounds its wait.
        let answered = Level()
        Task { _ = try? await call.value; answered.raise(to: 1) }
        #expect(await answered.wait(until: 1, within: .seconds(30)), "the caller waited out the dead claim")
        let response = try await call.value
        #expect(String(decoding: response.value, as: UTF8.self) == "slow")
        #expect(response.source == .network)
        #expect(fleet.origin.requestCount("/slow") == 2)
    }

    /// An answer the cache may not store is not shared: once it came, the callers waiting for it
    /// go to the origin themselves, without waiting out the claim (the flight was ended).
    @Test(.timeLimit(.minutes(2))) func anAnswerNotStoredSendsTheWaitingCallersToTheOrigin() async throws {
        let fleet = try await FleetTests.Fleet.make()
        defer { Task { await fleet.tearDown() } }
        fleet.origin.route("GET", "/live") { _ in
            try? await Task.sleep(for: .milliseconds(200))
            return .text("live", headers: [MockHeader("Cache-Control", "no-store")])
        }
        let (got, _) = try await Self.herd(on: fleet, path: "/live", callers: 3)
        #expect(got.count == 9 && got.allSatisfy { $0 == "network=live" }, "\(got)")
        #expect(fleet.origin.requestCount("/live") == 9)
        #expect(try await flights(of: fleet) == 0, "the server that fetched it ended its flight")
    }
}
