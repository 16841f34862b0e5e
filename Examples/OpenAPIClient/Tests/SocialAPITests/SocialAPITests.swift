import Courier
import CourierCache
import CourierTesting
import Foundation
import OpenAPIRuntime
import SocialAPI
import Testing

/// The generated client, over Courier's transport and middlewares, against the sample API on 127.0.0.1.
@Suite struct SocialAPITests {
    /// Runs `body` with a started server and a service signed in as Ann, then stops the server.
    private func withSignedInService(
        retryPolicy: RetryPolicy = .default,
        _ body: (SampleAPIServer, SocialService) async throws -> Void
    ) async throws {
        let api = try await SampleAPIServer.start()
        let social = SocialService(
            serverURL: api.server.baseURL, cacheStore: InMemoryCacheStorage(maximumSize: 1 << 20), retryPolicy: retryPolicy
        )
        do {
            try await social.signIn(username: "ann", password: "secret")
            try await body(api, social)
        } catch {
            try await api.server.shutdown()
            throw error
        }
        try await api.server.shutdown()
    }

    @Test func getsFriendsWithTheSignedInUsersToken() async throws {
        try await withSignedInService { api, social in
            let friends = try await social.api.listFriends(path: .init(id: 1), query: .init(limit: 5)).ok.body.json
            #expect(friends.map(\.name) == ["Ben", "Chloé"])
            let sent = try #require(api.server.recordedRequests.last)
            #expect(sent.target == "/users/1/friends?limit=5")
            #expect(sent.header("Authorization") == "Bearer access-1-1")
        }
    }

    @Test func refusedTokenIsRefreshedAndTheCallReplayed() async throws {
        try await withSignedInService { api, social in
            api.expireAccessTokens()
            let friends = try await social.api.listFriends(path: .init(id: 1)).ok.body.json
            #expect(friends.count == 2)
            let calls = api.server.recordedRequests.dropFirst().map { "\($0.method) \($0.path) \($0.header("Authorization") ?? "-")" }
            #expect(calls == [
                "GET /users/1/friends Bearer access-1-1",  // refused: 401
                "POST /token/refresh -",  // the auth client sends no credentials
                "GET /users/1/friends Bearer access-1-2",  // replayed once with the new token
            ])
            #expect(social.credentials.credentials?.refreshToken == "refresh-1-2")
        }
    }

    @Test func refusedRefreshEndsTheSession() async throws {
        try await withSignedInService { api, social in
            api.expireAccessTokens()
            social.credentials.update(.bearer("access-1-1", identity: "1", refreshToken: "already-used"))
            let error = try await #require(throws: ClientError.self) {
                try await social.api.listFriends(path: .init(id: 1))
            }
            #expect((error.underlyingError as? CourierError)?.kind == .sessionExpired)
            #expect(social.credentials.credentials == nil)
        }
    }

    @Test func freshFeedIsServedFromTheCache() async throws {
        try await withSignedInService { api, social in
            let first = try await social.api.getFeed().ok.body.json
            let second = try await social.api.getFeed().ok.body.json
            #expect(first.posts.map(\.author) == ["Ann", "Ben"])
            #expect(second.posts == first.posts)
            #expect(api.server.requestCount("/feed") == 1)
        }
    }

    /// A generated call has no endpoint to carry a cache policy; a request context set around it
    /// does, and tells afterwards where the response came from.
    @Test func aCallCanChooseItsCachePolicyThroughTheRequestContext() async throws {
        try await withSignedInService { api, social in
            let cached = RequestContext(endpoint: "getFeed", cachePolicy: .followHTTP, isIdempotent: true, timeout: .seconds(10))
            let networkOnly = RequestContext(endpoint: "getFeed", cachePolicy: .networkOnly, isIdempotent: true, timeout: .seconds(10))
            _ = try await social.api.getFeed().ok.body.json
            let (_, cachedReport) = try await RequestContext.$current.withValue(cached) {
                try await RequestContext.reporting { try await social.api.getFeed().ok.body.json }
            }
            let (refreshed, networkReport) = try await RequestContext.$current.withValue(networkOnly) {
                try await RequestContext.reporting { try await social.api.getFeed().ok.body.json }
            }
            #expect(refreshed.version == 1)
            #expect(cachedReport.source == .cache)
            #expect(networkReport.source == .network)
            #expect(api.server.requestCount("/feed") == 2)
        }
    }

    @Test func lostConnectionAndUnavailableAreRetried() async throws {
        let quick = RetryPolicy(baseDelay: .milliseconds(5), maximumDelay: .milliseconds(20))
        try await withSignedInService(retryPolicy: quick) { api, social in
            // The transport sends a request once more by itself when a connection closes before any
            // answer (a pooled connection the server dropped); a second reset is a lost connection.
            let reset = MockResponse.status(200).with(fault: .reset)
            api.server.route("GET", "/flaky", script: [
                reset, reset,  // attempt 1: connectionLost
                .status(503),  // attempt 2
                .json(#"{"status":"ok","message":"Third time lucky"}"#),  // attempt 3
            ])
            let answer = try await social.api.getFlaky().ok.body.json
            #expect(answer.message == "Third time lucky")
            #expect(api.server.requestCount("/flaky") == 4)
        }
    }
}

