import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

extension ResilienceTests {
    /// Single-flight token refresh run through a real client.
    @Suite(.timeLimit(.minutes(10))) struct TokenRefreshMiddlewareTests {
        let store = CredentialStore(.bearer("old", identity: "u1", refreshToken: "r1"))
        /// Counts transport calls.
        let calls = Signal()
        /// Counts 401 answers.
        let refusals = Signal()
        /// Counts refresh calls.
        let refreshes = Signal()
        /// Counts sign-outs.
        let signOuts = Signal()

        static let fresh = Credentials.bearer("new", identity: "u1", refreshToken: "r2")

        /// A transport that accepts only `Bearer new`, unless `acceptsNewToken` is false; `hold` runs before a 401.
        func transport(acceptsNewToken: Bool = true, hold: @escaping @Sendable (HTTPRequest) async -> Void = { _ in }) -> ClosureTransport {
            let calls = calls
            let refusals = refusals
            return ClosureTransport { request, _ in
                calls.increment()
                if acceptsNewToken, request.headerFields[.authorization] == "Bearer new" {
                    return ClosureTransport.respond(.ok, body: "ok")
                }
                await hold(request)
                refusals.increment()
                return ClosureTransport.respond(.unauthorized, [.wwwAuthenticate: #"Bearer error="invalid_token""#])
            }
        }

        func client(_ transport: ClosureTransport, refresh: @escaping @Sendable (Credentials) async throws -> Credentials) -> Client {
            let signOuts = signOuts
            store.onSignOut { identity in
                if identity == "u1" { signOuts.increment() }
            }
            let refreshes = refreshes
            let middleware = TokenRefreshMiddleware(store: store) { credentials in
                refreshes.increment()
                return try await refresh(credentials)
            }
            return ResilienceTests.client(transport, middlewares: [middleware, CredentialsMiddleware(provider: store)])
        }

        @Test func fiftyConcurrentRefusalsShareOneRefreshAndEachReplaysOnce() async throws {
            let refusals = refusals
            let client = client(transport()) { credentials in
                #expect(credentials.refreshToken == "r1")
                await refusals.wait(for: 50)  // every request has been refused before the refresh ends
                return Self.fresh
            }
            let attempts = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0 ..< 50 {
                    group.addTask {
                        let response = try await client.response(for: Call())
                        #expect(response.value == Data("ok".utf8))
                        return response.attempts
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(attempts == Array(repeating: 2, count: 50))
            #expect(refreshes.count == 1)
            #expect(calls.count == 100)
            #expect(store.credentials == Self.fresh)
        }

        @Test func aRefusalOfAnOlderTokenIsReplayedWithoutRefreshing() async throws {
            let slowArrived = Signal()
            let releaseSlow = Signal()
            let transport = transport { request in
                guard request.path == "/slow" else { return }
                slowArrived.increment()
                await releaseSlow.wait()
            }
            let client = client(transport) { _ in Self.fresh }
            let slow = Task { try await client.response(for: Call(path: "/slow")) }
            await slowArrived.wait()  // sent with the old token, its 401 still on the way

            let fast = try await client.response(for: Call())
            #expect(fast.attempts == 2)
            #expect(refreshes.count == 1)

            releaseSlow.increment()
            let response = try await slow.value
            #expect(response.attempts == 2)
            #expect(refreshes.count == 1, "the token was already refreshed")
        }

        @Test func aRefusedReplayIsReturnedWithoutAnotherRefresh() async throws {
            let client = client(transport(acceptsNewToken: false)) { _ in Self.fresh }
            let error = try #require(await #expect(throws: CourierError.self) { try await client.send(Call()) })
            #expect(error.status == .unauthorized)
            #expect(error.kind == .unacceptableStatus)
            #expect(calls.count == 2)
            #expect(refreshes.count == 1)
        }

        @Test func aRefusedRefreshSignsOutOnceAndExpiresEveryWaitingCall() async throws {
            let refusals = refusals
            let client = client(transport()) { _ in
                await refusals.wait(for: 20)
                throw CourierError(.sessionExpired, detail: "refresh token revoked")
            }
            let errors = await withTaskGroup(of: CourierError?.self) { group in
                for _ in 0 ..< 20 {
                    group.addTask {
                        do throws(CourierError) {
                            _ = try await client.send(Call())
                            Issue.record("The call succeeded without credentials")
                            return nil
                        } catch {
                            return error
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(errors.map(\.?.kind) == Array(repeating: .sessionExpired, count: 20))
            #expect(errors.allSatisfy { ($0?.underlying as? CourierError)?.detail == "refresh token revoked" })
            #expect(refreshes.count == 1)
            #expect(signOuts.count == 1)
            #expect(store.credentials == nil)
            #expect(calls.count == 20, "no replay after a failed refresh")
        }

        @Test func aRefreshEndpointAnswering401EndsTheSession() async throws {
            let auth = ResilienceTests.client(ClosureTransport { _, _ in ClosureTransport.respond(.unauthorized) }, middlewares: [])
            let client = client(transport()) { credentials in
                _ = try await auth.send(Call(.post, path: "/oauth/token", requiresAuthentication: false, body: .text(credentials.refreshToken ?? "")))
                return Self.fresh
            }
            let error = try #require(await #expect(throws: CourierError.self) { try await client.send(Call()) })
            #expect(error.kind == .sessionExpired)
            #expect((error.underlying as? CourierError)?.status == .unauthorized)
            #expect(signOuts.count == 1)
            #expect(store.credentials == nil)
        }

        @Test func aLaterRefusalAfterTheSessionEndedExpiresWithoutRefreshing() async throws {
            let client = client(transport()) { _ in throw CourierError(.sessionExpired, detail: "refused") }
            let first = try #require(await #expect(throws: CourierError.self) { try await client.send(Call()) })
            #expect(first.kind == .sessionExpired)
            // Signed out now: nothing is sent with credentials, so the 401 passes through untouched.
            let second = try #require(await #expect(throws: CourierError.self) { try await client.send(Call()) })
            #expect(second.status == .unauthorized)
            #expect(refreshes.count == 1)
            #expect(signOuts.count == 1)
        }

        @Test func cancellingOneWaitingCallLeavesTheRefreshRunningForTheOthers() async throws {
            let refreshStarted = Signal()
            let releaseRefresh = Signal()
            let client = client(transport()) { _ in
                refreshStarted.increment()
                await releaseRefresh.wait()
                return Self.fresh
            }
            let first = Task { try await client.send(Call()) }
            await refreshStarted.wait()  // the first call started the refresh
            let second = Task { try await client.response(for: Call()) }
            await refusals.wait(for: 2)

            first.cancel()
            let error = try #require(await #expect(throws: CourierError.self) { try await first.value })
            #expect(error.kind == .cancelled, "the cancelled call ends before the refresh does")
            #expect(refreshes.count == 1)

            releaseRefresh.increment()
            let response = try await second.value
            #expect(response.attempts == 2)
            #expect(refreshes.count == 1)
            #expect(store.credentials == Self.fresh)
        }

        @Test func insufficientScopeIsNotATokenFailure() async throws {
            let transport = ClosureTransport { _, _ in
                ClosureTransport.respond(.unauthorized, [.wwwAuthenticate: #"Bearer realm="api", error="insufficient_scope", scope="admin""#])
            }
            let client = client(transport) { _ in Self.fresh }
            let error = try #require(await #expect(throws: CourierError.self) { try await client.send(Call()) })
            #expect(error.status == .unauthorized)
            #expect(refreshes.count == 0)
        }

        @Test func anEndpointWithoutAuthenticationIsNotRefreshed() async throws {
            let client = client(transport()) { _ in Self.fresh }
            let error = try #require(await #expect(throws: CourierError.self) { try await client.send(Call(requiresAuthentication: false)) })
            #expect(error.status == .unauthorized)
            #expect(refreshes.count == 0)
            #expect(calls.count == 1)
        }

        @Test func aBodyThatCanBeSentOnlyOnceIsNotReplayed() async throws {
            let refreshes = refreshes
            let refresh = TokenRefreshMiddleware(store: store) { _ in
                refreshes.increment()
                return Self.fresh
            }
            let client = ResilienceTests.client(
                transport(),
                middlewares: [SingleUseBodyMiddleware(), refresh, CredentialsMiddleware(provider: store)]
            )
            let error = try #require(await #expect(throws: CourierError.self) { try await client.send(Call(.put, body: .text("x"))) })
            #expect(error.status == .unauthorized)
            #expect(calls.count == 1)
            #expect(refreshes.count == 0)
            #expect(store.credentials?.refreshToken == "r1")
        }

        @Test func defaultPredicate() {
            let context = RequestContext(endpoint: "e", cachePolicy: .withoutCache, isIdempotent: true, timeout: .seconds(1))
            let anonymous = RequestContext(
                endpoint: "e", cachePolicy: .withoutCache, isIdempotent: true, timeout: .seconds(1), requiresAuthentication: false
            )
            func response(_ status: HTTPResponse.Status, _ challenge: String? = nil) -> HTTPResponse {
                HTTPResponse(status: status, headerFields: challenge.map { [.wwwAuthenticate: $0] } ?? [:])
            }
            #expect(TokenRefreshMiddleware.isTokenFailure(response(.unauthorized), context: context))
            #expect(TokenRefreshMiddleware.isTokenFailure(response(.unauthorized), context: nil))
            #expect(TokenRefreshMiddleware.isTokenFailure(response(.unauthorized, #"Bearer error="invalid_token""#), context: context))
            #expect(!TokenRefreshMiddleware.isTokenFailure(response(.unauthorized, #"Bearer error = "insufficient_scope""#), context: context))
            #expect(!TokenRefreshMiddleware.isTokenFailure(response(.unauthorized, "Bearer error=Insufficient_Scope"), context: context))
            #expect(!TokenRefreshMiddleware.isTokenFailure(response(.unauthorized), context: anonymous))
            #expect(!TokenRefreshMiddleware.isTokenFailure(response(.forbidden), context: context))
        }
    }
}
