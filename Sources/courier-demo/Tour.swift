import Courier
import CourierAsyncHTTPClient
import CourierCache
import CourierCallbacks
import CourierExamples
import CourierTesting
import Dispatch
import Foundation

/// The narrated tour: each step uses one feature against the sample API.
struct Tour {
    let baseURL: URL
    /// The embedded API, when the tour started it (needed to show the offline fallback).
    let api: SampleSocialAPI?

    func run() async throws {
        print("Courier demo — talking to \(baseURL.absoluteString)")
        let workDir = FileManager.default.temporaryDirectory.appendingPathComponent("courier-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: workDir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: workDir) }

        let credentials = CredentialStore()
        let timingLog = workDir.appendingPathComponent("timing.log")
        let cache = HTTPCache(storage: try SQLiteCacheStorage(fileURL: workDir.appendingPathComponent("cache.sqlite"), maximumSize: 20 << 20))
        cache.clearPartition(onSignOutOf: credentials)
        // The auth backend gets its own client: no credentials, no refresh, no cache.
        let authClient = Client(baseURL: baseURL, transport: AsyncHTTPClientTransport())
        let refresh = TokenRefreshMiddleware(store: credentials) { old in
            let tokens = try await authClient.send(RefreshToken(refreshToken: old.refreshToken ?? ""))
            Narrator.say("↻ refreshed the access token once (single flight)")
            return .bearer(tokens.token, identity: "\(tokens.userId)", refreshToken: tokens.refreshToken)
        }
        let report = TelemetryReport()
        let client = Client(
            baseURL: baseURL,
            transport: AsyncHTTPClientTransport(),
            middlewares: [
                TelemetryMiddleware(), try TimingLogMiddleware(fileURL: timingLog), cache, RetryMiddleware(), refresh,
                CredentialsMiddleware(provider: credentials), AttemptTelemetryMiddleware(),
            ]
        ) {
            $0.timeout = .seconds(10)
            $0.telemetry = report.telemetry
        }

        try await signIn(client, credentials)
        try await friends(client)
        await serverMessage(client)
        await envelope(client)
        try await threads(credentials)
        await cancellation(client)
        try await cacheThenNetwork(client)
        try await offlineFallback(client)
        try await retry(client)
        try await tokenRefresh(client, authClient)
        try await transfers(client, in: workDir)
        try await liveScores(client)
        try await postPages(client)
        try await offlineWrites(client, in: workDir)
        try printTimings(timingLog)
        Narrator.step(16, "Metrics the tour recorded, in Prometheus text format (swift-metrics → swift-prometheus)")
        report.printMetrics()
        Narrator.step(17, "The spans of the retried call (step 9): one call span, a child span per network attempt")
        report.printSpans(of: "/flaky")
        print("\nTour complete.")
    }

    private func signIn(_ client: Client, _ credentials: CredentialStore) async throws {
        Narrator.step(1, "Sign in, then every request carries the token in a header")
        struct Login: Endpoint {
            typealias Response = TokenBody
            var method: HTTPRequest.Method { .post }
            var path: EndpointPath { "/login" }
            var parameters: Parameters
            var requiresAuthentication: Bool { false }
        }
        do {
            _ = try await client.send(Login(parameters: ["username": "ann", "password": "wrong"]))
        } catch {
            Narrator.failure(error)
        }
        let tokens = try await client.send(Login(parameters: ["username": "ann", "password": "secret"]))
        credentials.update(.bearer(tokens.token, identity: "\(tokens.userId)", refreshToken: tokens.refreshToken))
        Narrator.say("✓ signed in as user \(tokens.userId); the token lives in a CredentialStore, never in a URL")
    }

    private func friends(_ client: Client) async throws {
        Narrator.step(2, "FriendsService: load, add, group and remove friends")
        let service = FriendsService(client: client)
        let friends = try await service.friends(of: 1)
        Narrator.say("✓ friends of Ann: \(friends.map(\.name).joined(separator: ", "))")
        try await service.add(friend: 5, to: 1)
        let byCity = try await service.friendsByCity(of: 1)
        Narrator.say("✓ added Eve; by city: " + byCity.keys.sorted().map { "\($0): \(byCity[$0, default: []].map(\.name).joined(separator: ", "))" }.joined(separator: " · "))
        try await service.remove(friend: 5, from: 1)
        Narrator.say("✓ removed Eve again; \(try await service.friends(of: 1).count) friends")
    }

    private func serverMessage(_ client: Client) async {
        Narrator.step(3, "An error the server explains: its message becomes the error text")
        do {
            try await FriendsService(client: client).add(friend: 999, to: 1)
        } catch {
            Narrator.failure(error)
        }
    }

    private func envelope(_ client: Client) async {
        Narrator.step(4, "BindUser: a {code, msg, data} envelope; an error inside a 200 still fails")
        do {
            let account = try await client.send(BindUser(phone: "+33611111111", code: "0000"))
            Narrator.say("✓ bound \(account.phone) to \(account.accountId)")
            _ = try await client.send(BindUser(phone: "+33611111111", code: "0000"))
        } catch {
            Narrator.failure(error)
        }
    }

    private func threads(_ credentials: CredentialStore) async throws {
        Narrator.step(5, "ThreadRequest: an enum of actions on a RocketChat-style client (X-Auth-Token, X-User-Id)")
        guard let bearer = credentials.credentials?.headers[.authorization]?.replacingOccurrences(of: "Bearer ", with: "") else { return }
        let chat = Client.rocketChat(
            baseURL: baseURL, credentials: CredentialStore(.authToken(bearer, userID: "1")), transport: AsyncHTTPClientTransport()
        )
        let added = try await chat.send(ThreadRequest.addMembers(threadID: "t-42", members: ["ben", "chloe"]))
        Narrator.say("✓ addMembers → success: \(added["success"]?.bool ?? false), action: \(added["action"]?.string ?? "?")")
        let missed = try await chat.send(ThreadRequest.loadMissed(threadID: "t-42", since: Date(timeIntervalSinceNow: -3600), limit: 20))
        Narrator.say("✓ loadMissed → threadId \(missed["threadId"]?.string ?? "?") (untyped JSON read with typed accessors)")
    }

    private func cancellation(_ client: Client) async {
        Narrator.step(6, "A cancelled call: the completion handler hears 'cancelled' exactly once")
        struct Slow: Endpoint {
            typealias Response = [Int]
            var path: EndpointPath { "/slow" }
        }
        let deliveries = Locked(0)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let handle = client.send(Slow(), queue: .global()) { result in
                deliveries.withLock { $0 += 1 }
                if case .failure(let error) = result { Narrator.say("✓ delivered: \(error.kind == .cancelled ? "cancelled" : "\(error)")") }
                done.resume()
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(150)) { handle.cancel() }
        }
        try? await Task.sleep(for: .milliseconds(300))
        Narrator.say("✓ deliveries: \(deliveries.current)")
    }

    private func cacheThenNetwork(_ client: Client) async throws {
        Narrator.step(7, "Cache then network: the cached feed at once, then the fresh one")
        struct Feed: Endpoint {
            typealias Response = JSON
            var path: EndpointPath { "/feed" }
        }
        _ = try await client.send(Feed(), cachePolicy: .networkOnly)
        for try await update in client.updates(for: Feed(), cachePolicy: .useCacheAndRequest) {
            Narrator.say("✓ next: feed version \(update.value["version"]?.int ?? -1) from \(update.source) in \(Narrator.milliseconds(update.duration)) ms")
        }
        Narrator.say("✓ completed")
    }

    private func offlineFallback(_ client: Client) async throws {
        Narrator.step(8, "Offline: the server goes away, the feed still shows, marked stale")
        struct Feed: Endpoint {
            typealias Response = JSON
            var path: EndpointPath { "/feed" }
        }
        guard let api else {
            Narrator.say("(skipped: the tour runs against an external server)")
            return
        }
        try await api.server.goDown()
        let response = try await client.response(for: Feed(), cachePolicy: .networkFirst)
        Narrator.say("✓ feed version \(response.value["version"]?.int ?? -1), source: \(response.source)")
        do {
            _ = try await client.send(Feed(), cachePolicy: .withoutCache)
        } catch {
            Narrator.failure(error)
        }
        try await api.server.comeUp()
    }

    private func retry(_ client: Client) async throws {
        Narrator.step(9, "Retry: a flaky endpoint answers 503 + Retry-After twice, then succeeds")
        struct Flaky: Endpoint {
            typealias Response = JSON
            var path: EndpointPath { "/flaky" }
        }
        let response = try await client.response(for: Flaky())
        Narrator.say("✓ \(response.value["message"]?.string ?? "?") after \(response.attempts) attempts in \(Narrator.milliseconds(response.duration)) ms")
    }

    private func tokenRefresh(_ client: Client, _ authClient: Client) async throws {
        Narrator.step(10, "Token refresh: the server expires every token; 5 concurrent calls hit 401, one refresh serves them all")
        _ = try await authClient.send(ExpireTokens())
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<5 { group.addTask { try await FriendsService(client: client).friends(of: 1).count } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        Narrator.say("✓ all \(counts.count) calls succeeded after one replay each")
    }

    private func printTimings(_ file: URL) throws {
        Narrator.step(15, "The timing log: one line per request (time, method, endpoint, status, ms, bytes, source)")
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
        for line in lines.suffix(6) { Narrator.say(String(line)) }
        Narrator.say("(\(lines.count) lines in all)")
    }
}

/// `POST /token/refresh`: trades a refresh token for new tokens.
struct RefreshToken: Endpoint {
    typealias Response = TokenBody
    var refreshToken: String
    var method: HTTPRequest.Method { .post }
    var path: EndpointPath { "/token/refresh" }
    var parameters: Parameters { ["refreshToken": refreshToken] }
    var requiresAuthentication: Bool { false }
}

/// `POST /admin/expire-tokens`: the sample server forgets every access token.
struct ExpireTokens: Endpoint {
    typealias Response = Empty
    var method: HTTPRequest.Method { .post }
    var path: EndpointPath { "/admin/expire-tokens" }
}
