import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

extension ResilienceTests {
    /// Which refresh failures end the session, over real loopback servers: an API that accepts only
    /// the refreshed token, and an auth server that the test takes down, breaks or slows.
    @Suite(.timeLimit(.minutes(10))) struct RefreshFailureTests {
        struct Servers {
            let api: MockServer
            let auth: MockServer
            let store = CredentialStore(.bearer("old", identity: "u1", refreshToken: "r1"))
            let signOuts = Signal()
            /// The refresh call's timeout, read at each refresh: a test can lengthen it between calls.
            let refreshTimeout = Locked<Duration>(.seconds(120))

            static func start() async throws -> Servers {
                let servers = Servers(api: try await MockServer.start(), auth: try await MockServer.start())
                servers.api.route("GET", "/me") { request in
                    request.header("Authorization") == "Bearer new" ? .json(#"{"id":"u1"}"#) : .status(401)
                }
                servers.auth.route("POST", "/oauth/token", respond: .json(#"{"access_token":"new"}"#))
                let signOuts = servers.signOuts
                servers.store.onSignOut { _ in signOuts.increment() }
                return servers
            }

            /// The API client; its refresh calls the auth server with its own client.
            func client(timeout: Duration = .seconds(120), refreshTimeout: Duration? = nil) -> Client {
                if let refreshTimeout { self.refreshTimeout.withLock { $0 = refreshTimeout } }
                let limit = self.refreshTimeout
                let auth = Client(baseURL: auth.baseURL)
                let refresh = TokenRefreshMiddleware(store: store) { old in
                    let answer = try await auth.send(RefreshToken(token: old.refreshToken ?? "", timeout: limit.current))
                    return .bearer(answer["access_token"]?.string ?? "", identity: old.identity, refreshToken: "r2")
                }
                return Client(baseURL: api.baseURL, middlewares: [refresh, CredentialsMiddleware(provider: store)]) {
                    $0.timeout = timeout
                }
            }

            func shutdown() async {
                try? await api.shutdown()
                try? await auth.shutdown()
            }
        }

        @Test func anOfflineRefreshKeepsTheSessionAndSucceedsOnceOnline() async throws {
            let servers = try await Servers.start()
            defer { Task { await servers.shutdown() } }
            let client = servers.client()
            try await servers.auth.goDown()

            let error = try #require(await #expect(throws: CourierError.self) { try await client.send(Me()) })
            #expect(error.kind == .noConnection)
            #expect(error.family == .noConnection, "the UI says 'No Internet connection', not 'please sign in'")
            #expect(servers.store.credentials?.headers[.authorization] == "Bearer old")
            #expect(servers.signOuts.count == 0)

            try await servers.auth.comeUp()
            #expect(try await client.send(Me())["id"]?.string == "u1")
            #expect(servers.store.credentials?.headers[.authorization] == "Bearer new")
            #expect(servers.signOuts.count == 0)
        }

        @Test func aServerErrorDuringRefreshKeepsTheSession() async throws {
            let servers = try await Servers.start()
            defer { Task { await servers.shutdown() } }
            servers.auth.route("POST", "/oauth/token", respond: .status(503))
            let error = try #require(await #expect(throws: CourierError.self) { try await servers.client().send(Me()) })
            #expect(error.kind == .unacceptableStatus)
            #expect(error.status == .serviceUnavailable)
            #expect(servers.store.credentials != nil)
            #expect(servers.signOuts.count == 0)
        }

        /// The refresh call's own timeout (not the waiting call's): the credentials stay.
        @Test func aRefreshThatTimesOutKeepsTheSession() async throws {
            let servers = try await Servers.start()
            defer { Task { await servers.shutdown() } }
            servers.auth.route("POST", "/oauth/token", respond: MockResponse.json("{}").with(fault: .neverAnswer))
            let client = servers.client(timeout: .seconds(300), refreshTimeout: .milliseconds(500))
            let error = try #require(await #expect(throws: CourierError.self) { try await client.send(Me()) })
            #expect(error.kind == .timedOut)
            #expect(error.detail.contains("could not be refreshed"), "the refresh's own failure: \(error.detail)")
            #expect(servers.store.credentials?.headers[.authorization] == "Bearer old")
            #expect(servers.signOuts.count == 0)

            servers.auth.route("POST", "/oauth/token", respond: .json(#"{"access_token":"new"}"#))
            // The refresh that must succeed gets room for a loaded machine (a sanitized build once
            // took more than 0.5 s for it).
            servers.refreshTimeout.withLock { $0 = .seconds(300) }
            #expect(try await client.send(Me())["id"]?.string == "u1", "the next call refreshes again")
            #expect(servers.signOuts.count == 0)
        }

        @Test(arguments: [Fault.reset, .closeMidBody(afterBytes: 4)])
        func aRefreshThatLosesItsConnectionKeepsTheSession(fault: Fault) async throws {
            let servers = try await Servers.start()
            defer { Task { await servers.shutdown() } }
            servers.auth.route("POST", "/oauth/token", respond: MockResponse.json(#"{"access_token":"new"}"#).with(fault: fault))
            let error = try #require(await #expect(throws: CourierError.self) { try await servers.client().send(Me()) })
            #expect(error.kind == .connectionLost)
            #expect(error.detail.contains("could not be refreshed"), "\(error.detail)")
            #expect(servers.store.credentials?.headers[.authorization] == "Bearer old")
            #expect(servers.signOuts.count == 0)
        }

        @Test(arguments: [
            MockResponse.json(#"{"error":"invalid_grant","error_description":"Refresh token revoked"}"#, status: 400),
            MockResponse.status(401),
        ])
        func aRefusedRefreshTokenEndsTheSession(answer: MockResponse) async throws {
            let servers = try await Servers.start()
            defer { Task { await servers.shutdown() } }
            servers.auth.route("POST", "/oauth/token", respond: answer)
            let error = try #require(await #expect(throws: CourierError.self) { try await servers.client().send(Me()) })
            #expect(error.kind == .sessionExpired)
            #expect(servers.store.credentials == nil)
            #expect(servers.signOuts.count == 1)
        }

        @Test func aHangingRefreshIsBoundedByTheCallsTimeout() async throws {
            let servers = try await Servers.start()
            defer { Task { await servers.shutdown() } }
            servers.auth.route("POST", "/oauth/token", respond: MockResponse.json("{}").with(fault: .neverAnswer))
            let started = ContinuousClock.now
            let error = try #require(await #expect(throws: CourierError.self) {
                try await servers.client(timeout: .seconds(1), refreshTimeout: .seconds(300)).send(Me())
            })
            let elapsed = ContinuousClock.now - started
            #expect(error.kind == .timedOut)
            // The call's 1 s, not the refresh's 300 s: half of that is beyond any machine's slowness.
            #expect(elapsed < .seconds(150), "the call gave up after \(elapsed)")
            #expect(servers.store.credentials != nil)
        }
    }

    struct Me: Endpoint {
        typealias Response = JSON
        var path: EndpointPath { "/me" }
    }

    struct RefreshToken: Endpoint {
        typealias Response = JSON
        let token: String
        var method: HTTPRequest.Method { .post }
        var path: EndpointPath { "/oauth/token" }
        var parameters: Parameters { ["refresh_token": token] }
        var requiresAuthentication: Bool { false }
        var timeout: Duration?
    }
}
