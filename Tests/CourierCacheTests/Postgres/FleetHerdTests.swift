import Courier
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
    /// (`source=body`), this process's first.
    static func herd(on fleet: FleetTests.Fleet, path: String, callers: Int = 8) async throws -> [String] {
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
        let client = fleet.client(for: "-")
        let here = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<callers {
                group.addTask {
                    let response = try await client.response(for: Page(path: EndpointPath(stringLiteral: path), requestID: "here-\(index)"))
                    return "\(response.source)=\(String(decoding: response.value, as: UTF8.self))"
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        var got = here
        for (peer, output) in zip(peers, outputs) {
            let status = await peer.exitCode()
            let printed = ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n")
            #expect(status == 0, "the peer printed \(printed)")
            got += printed.dropFirst().flatMap { $0.split(separator: " ").map(String.init) }
        }
        return got
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
        let started = ContinuousClock.now
        let got = try await Self.herd(on: fleet, path: "/popular")
        print("herd of 24 callers on 3 servers took \(ContinuousClock.now - started): \(got.sorted())")
        #expect(got.count == 24)
        #expect(got.allSatisfy { $0.hasSuffix("=popular") }, "\(got)")
        #expect(fleet.origin.requestCount("/popular") == 1, "one server fetched it for the fleet")
        #expect(got.filter { $0.hasPrefix("network=") }.count == 1)
        #expect(try await flights(of: fleet) == 0, "the store ended the flight")
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
        let got = try await Self.herd(on: fleet, path: "/live", callers: 3)
        #expect(got.count == 9 && got.allSatisfy { $0 == "network=live" }, "\(got)")
        #expect(fleet.origin.requestCount("/live") == 9)
        #expect(try await flights(of: fleet) == 0, "the server that fetched it ended its flight")
    }
}
