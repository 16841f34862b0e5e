import Courier
import CourierAsyncHTTPClient
import CourierCache
import CourierCachePostgres
import CourierTestSupport
import CourierTesting
import Foundation
import HTTPTypes
import PostgresNIO
import Testing

/// Two servers of a fleet over one PostgreSQL database: this test process, and a peer in a process
/// of its own (`courier-cache-peer`). What one stores the other serves; a `304` one receives
/// refreshes the entry for both; concurrent stores of one key leave one variant; a sign-out on
/// one clears the user for both; users stay apart, and no row holds a token.
@Suite(.serialized, .enabled(if: ThrowawayPostgres.isAvailable, "PostgreSQL is not installed"))
struct FleetTests {
    typealias Page = FleetMember.Page

    /// The origin, the database, and this process's server of the fleet.
    struct Fleet {
        let origin: MockServer
        let postgres: ThrowawayPostgres
        let database: String
        let client: PostgresClient
        let running: Task<Void, Never>
        let cache: HTTPCache

        /// A fleet whose server in this process has a clock `skew` ahead of the peer's.
        static func make(skew: TimeInterval = 0) async throws -> Fleet {
            let postgres = try ThrowawayPostgres.shared.get()
            let database = try await postgres.makeDatabase()
            let client = PostgresClient(configuration: postgres.configuration(database: database))
            let running = Task { await client.run() }
            let origin = try await MockServer.start()
            return Fleet(
                origin: origin, postgres: postgres, database: database, client: client, running: running,
                cache: HTTPCache(
                    storage: PostgresCacheStorage(client: client, maximumSize: 50 << 20, timeout: .seconds(30)),
                    now: { Date().addingTimeInterval(skew) }))
        }

        func client(for user: String) -> Client {
            Client(
                baseURL: origin.baseURL, transport: AsyncHTTPClientTransport(),
                middlewares: [CredentialsMiddleware(provider: FleetMember.User(user)), cache])
        }

        /// Runs one command in the peer process; the line it printed.
        func peer(_ arguments: String...) async throws -> String {
            let output = FileManager.default.temporaryDirectory.appendingPathComponent("courier-peer-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: output) }
            let child = try ChildProcess(
                Self.peerExecutable, ["\(postgres.port)", database, origin.baseURL.absoluteString] + arguments, output: output.path)
            let status = await child.exitCode()
            let printed = String(decoding: (try? Data(contentsOf: output)) ?? Data(), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            guard status == 0 else { throw PeerFailed(printed: "\(status.map(String.init) ?? "signal"): \(printed)") }
            return printed
        }

        /// Every row of the cache's tables as text, their byte columns decoded.
        func rowsAsText() async throws -> String {
            var text = ""
            for query: PostgresQuery in [
                "SELECT e::text || convert_from(headers, 'UTF8') FROM courier_cache_entry e",
                "SELECT encode(data, 'escape') FROM courier_cache_chunk",
            ] {
                for try await row in try await client.query(query).decode(String.self) { text += row + "\n" }
            }
            return text
        }

        func count(_ url: String) async throws -> Int {
            let rows = try await client.query("SELECT count(*) FROM courier_cache_entry WHERE url LIKE \("%" + url)")
            for try await count in rows.decode(Int64.self) { return Int(count) }
            return 0
        }

        func tearDown() async {
            running.cancel()
            try? await origin.shutdown()
        }

        /// The peer, built beside the test binary.
        static let peerExecutable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("courier-cache-peer").path
    }

    struct PeerFailed: Error, CustomStringConvertible {
        let printed: String
        var description: String { "the peer failed with \(printed)" }
    }

    @Test func whatOneServerStoresTheOtherServes() async throws {
        let fleet = try await Fleet.make()
        defer { Task { await fleet.tearDown() } }
        fleet.origin.route("GET", "/feed") { _ in .text("feed", headers: [MockHeader("Cache-Control", "max-age=600")]) }
        let here = try await fleet.client(for: "-").response(for: Page(path: "/feed"))
        #expect(here.source == .network)
        await fleet.cache.flush()
        #expect(try await fleet.peer("get", "/feed", "-") == "cache feed")
        #expect(fleet.origin.requestCount("/feed") == 1)
    }

    @Test func aNotModifiedOneServerGetsRefreshesTheEntryForBoth() async throws {
        let fleet = try await Fleet.make()
        defer { Task { await fleet.tearDown() } }
        fleet.origin.route("GET", "/feed") { request in
            if request.header("If-None-Match") == "\"v1\"" {
                return .status(304, headers: [MockHeader("ETag", "\"v1\""), MockHeader("Cache-Control", "max-age=600")])
            }
            return .text("feed", headers: [MockHeader("ETag", "\"v1\""), MockHeader("Cache-Control", "max-age=0")])
        }
        _ = try await fleet.client(for: "-").response(for: Page(path: "/feed"))
        await fleet.cache.flush()
        #expect(try await fleet.peer("get", "/feed", "-") == "revalidated feed", "stale: the peer revalidates it")
        let here = try await fleet.client(for: "-").response(for: Page(path: "/feed"))
        #expect(here.source == .cache, "the peer's 304 made the entry fresh here too")
        #expect(fleet.origin.requestCount("/feed") == 2)
    }

    @Test func concurrentStoresOfOneKeyLeaveOneVariant() async throws {
        let fleet = try await Fleet.make()
        defer { Task { await fleet.tearDown() } }
        fleet.origin.route("GET", "/feed") { _ in .text("feed", headers: [MockHeader("Cache-Control", "max-age=600")]) }
        let client = fleet.client(for: "-")
        async let peer = fleet.peer("refresh", "/feed", "-", "25")
        for _ in 0..<25 { _ = try await client.send(Page(path: "/feed"), cachePolicy: .networkOnly) }
        await fleet.cache.flush()
        #expect(try await peer == "refreshed")
        #expect(try await fleet.count("/feed") == 1)
        #expect(try await fleet.cache.statistics().failures == 0, "no store lost to a conflict")
    }

    /// A signed-in user's partition is that user's private cache, on every server: an answer the
    /// upstream marks `private` (GitHub's to an authenticated call) is kept for them and served to
    /// them by another server, never to another user; for nobody signed in it is not kept.
    @Test func aUsersPartitionIsTheirPrivateCacheAcrossTheFleet() async throws {
        let fleet = try await Fleet.make()
        defer { Task { await fleet.tearDown() } }
        fleet.origin.route("GET", "/inbox") { request in
            let user = (request.header("Authorization") ?? "nobody").replacingOccurrences(of: "Bearer token-of-", with: "")
            return .text("inbox of \(user)", headers: [MockHeader("Cache-Control", "private, max-age=60, s-maxage=60")])
        }
        #expect(try await fleet.client(for: "alice").response(for: Page(path: "/inbox")).source == .network)
        await fleet.cache.flush()
        #expect(try await fleet.count("/inbox") == 1)
        #expect(try await fleet.peer("get", "/inbox", "alice") == "cache inbox of alice")
        #expect(try await fleet.peer("get", "/inbox", "bob") == "network inbox of bob", "bob never gets alice's")
        #expect(try await fleet.peer("get", "/inbox", "-") == "network inbox of nobody")
        #expect(try await fleet.peer("get", "/inbox", "-") == "network inbox of nobody", "nobody's private answer was not kept")
        #expect(try await fleet.count("/inbox") == 2, "alice's and bob's")
        #expect(fleet.origin.requestCount("/inbox") == 4)
    }

    @Test func aSignOutOnOneServerClearsTheUserForTheFleetAndUsersStayApart() async throws {
        let fleet = try await Fleet.make()
        defer { Task { await fleet.tearDown() } }
        // Varies on the token, so a stored selection would hold it if the cache kept it in clear;
        // `must-revalidate` lets a shared cache keep a response to a request with credentials
        // (RFC 9111 §3.5), which the fleet's storage is by default.
        fleet.origin.route("GET", "/profile") { request in
            let user = (request.header("Authorization") ?? "nobody").replacingOccurrences(of: "Bearer token-of-", with: "")
            return .text(
                "profile of \(user)",
                headers: [MockHeader("Cache-Control", "max-age=600, must-revalidate"), MockHeader("Vary", "Authorization")])
        }
        let alice = try await fleet.client(for: "alice").response(for: Page(path: "/profile"))
        #expect(String(decoding: alice.value, as: UTF8.self) == "profile of alice")
        await fleet.cache.flush()
        #expect(try await fleet.peer("get", "/profile", "alice") == "cache profile of alice")
        #expect(try await fleet.peer("get", "/profile", "bob") == "network profile of bob", "bob never gets alice's")
        let rows = try await fleet.rowsAsText()
        #expect(rows.contains("profile of alice") && rows.contains("authorization=hmac:"), "the rows were read")
        #expect(!rows.contains("token-of"), "no row holds a token")
        #expect(try await fleet.peer("signout", "alice") == "cleared")
        let after = try await fleet.client(for: "alice").response(for: Page(path: "/profile"))
        #expect(after.source == .network, "alice's entry is gone for this server too")
        #expect(try await fleet.client(for: "bob").response(for: Page(path: "/profile")).source == .cache, "bob's stays")
    }

    /// Another server signs the user out while this one's answer for them is on its way: the
    /// store loses, inside its transaction (this server's own cache never heard of the clear),
    /// though this server's clock runs ahead (it would have stamped its request after the clear),
    /// whether the request followed a lookup or went without one (`networkOnly`).
    @Test(.timeLimit(.minutes(2)), arguments: [0, 5], [CachePolicy.followHTTP, .networkOnly])
    func aSignOutOnAnotherServerWinsOverAnAnswerOnItsWay(skew: TimeInterval, policy: CachePolicy) async throws {
        let fleet = try await Fleet.make(skew: skew)
        defer { Task { await fleet.tearDown() } }
        let (arrived, gate) = (Level(), Level())
        fleet.origin.route("GET", "/profile") { _ in
            arrived.add()
            await gate.wait(until: 1)
            return .text("profile", headers: [MockHeader("Cache-Control", "max-age=600, must-revalidate")])
        }
        let call = Task { try await fleet.client(for: "alice").response(for: Page(path: "/profile"), cachePolicy: policy) }
        #expect(await arrived.wait(until: 1, within: .seconds(60)))
        #expect(try await fleet.peer("signout", "alice") == "cleared")
        gate.raise(to: 1)
        #expect(try await call.value.source == .network)
        await fleet.cache.flush()
        #expect(try await fleet.count("/profile") == 0, "the clear won")
        #expect(try await fleet.cache.statistics().failures == 0, "a lost store is no failure")
        // A request sent after the clear is stored as usual, at once: no clocks to allow for.
        _ = try await fleet.client(for: "alice").response(for: Page(path: "/profile"), cachePolicy: policy)
        await fleet.cache.flush()
        #expect(try await fleet.count("/profile") == 1)
    }
}
