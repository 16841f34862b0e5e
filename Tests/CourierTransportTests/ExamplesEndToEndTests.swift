import Courier
import CourierExamples
import CourierTesting
import Foundation
import Testing

/// The three source designs, run against the sample API over every transport.
@Suite struct ExamplesEndToEndTests {
    private func signedInClient(_ kind: TransportKind, _ api: SampleSocialAPI) async throws -> (Client, CredentialStore) {
        let credentials = CredentialStore()
        let client = Client(baseURL: api.baseURL, transport: kind.make(), middlewares: [CredentialsMiddleware(provider: credentials)])
        let tokens = try await client.send(Login(username: "ann", password: "secret"))
        credentials.update(.bearer(tokens.token, identity: "\(tokens.userId)"))
        return (client, credentials)
    }

    struct Login: Endpoint {
        typealias Response = TokenBody
        var username: String
        var password: String
        var method: HTTPRequest.Method { .post }
        var path: EndpointPath { "/login" }
        var parameters: Parameters { ["username": username, "password": password] }
        var requiresAuthentication: Bool { false }
    }

    @Test(arguments: TransportKind.allCases)
    func friendsServiceLoadsAddsGroupsAndRemoves(kind: TransportKind) async throws {
        let api = try await SampleSocialAPI.start()
        defer { Task { try? await api.shutdown() } }
        let (client, _) = try await signedInClient(kind, api)
        let service = FriendsService(client: client)
        #expect(try await service.friends(of: 1).map(\.name) == ["Ben", "Chloé"])
        #expect(try await service.friends(of: 1, limit: 1).map(\.name) == ["Ben"])
        try await service.add(friend: 4, to: 1)
        let byCity = try await service.friendsByCity(of: 1)
        #expect(byCity["Elsewhere"]?.map(\.name) == ["Dan"])
        #expect(byCity["Paris"]?.map(\.name) == ["Chloé"])
        try await service.remove(friend: 4, from: 1)
        #expect(try await service.friends(of: 1).count == 2)
        let error = await #expect(throws: CourierError.self) { try await service.add(friend: 999, to: 1) }
        #expect(error?.errorDescription == "User 999 does not exist")
    }

    @Test(arguments: TransportKind.allCases)
    func anExpiredTokenIsAServerErrorWithItsMessage(kind: TransportKind) async throws {
        let api = try await SampleSocialAPI.start()
        defer { Task { try? await api.shutdown() } }
        let (client, _) = try await signedInClient(kind, api)
        _ = try await client.send(Empty.endpoint(.post, "/admin/expire-tokens"))
        let error = await #expect(throws: CourierError.self) { try await FriendsService(client: client).friends(of: 1) }
        #expect(error?.status == .unauthorized)
        #expect(error?.errorDescription == "Your token has expired")
    }

    @Test(arguments: TransportKind.allCases)
    func bindUserUnwrapsItsEnvelope(kind: TransportKind) async throws {
        let api = try await SampleSocialAPI.start()
        defer { Task { try? await api.shutdown() } }
        let client = Client(baseURL: api.baseURL, transport: kind.make())
        #expect(try await client.send(BindUser(phone: "+15550001", code: "0000")).phone == "+15550001")
        let error = await #expect(throws: CourierError.self) { try await client.send(BindUser(phone: "+15550001", code: "0000")) }
        #expect(error?.kind == .envelope)
        #expect(error?.status == .ok)
        #expect(error?.errorDescription == "This phone number is already bound to another account")
    }

    @Test(arguments: TransportKind.allCases)
    func threadRequestsCarryTheAuthTokenAndUserID(kind: TransportKind) async throws {
        let api = try await SampleSocialAPI.start()
        defer { Task { try? await api.shutdown() } }
        let (_, credentials) = try await signedInClient(kind, api)
        let token = try #require(credentials.credentials?.headers[.authorization]?.replacingOccurrences(of: "Bearer ", with: ""))
        let chat = Client.rocketChat(baseURL: api.baseURL, credentials: CredentialStore(.authToken(token, userID: "1")), transport: kind.make())
        let reply = try await chat.send(ThreadRequest.delete(threadID: "t-9"))
        #expect(reply["success"]?.bool == true)
        #expect(reply["action"]?.string == "delete")
        #expect(api.server.lastRequest?.header("X-Auth-Token") == token)
        let stranger = Client.rocketChat(baseURL: api.baseURL, credentials: CredentialStore(.authToken("forged", userID: "1")), transport: kind.make())
        let error = await #expect(throws: CourierError.self) { try await stranger.send(ThreadRequest.delete(threadID: "t-9")) }
        #expect(error?.errorDescription == "You must be logged in to do this.")
    }
}

/// A one-off endpoint: method and path, no body expected back.
struct AdHoc: Endpoint {
    typealias Response = Empty
    var method: HTTPRequest.Method
    var path: EndpointPath
}

extension Empty {
    /// An ad-hoc endpoint returning nothing.
    static func endpoint(_ method: HTTPRequest.Method, _ path: EndpointPath) -> AdHoc { AdHoc(method: method, path: path) }
}

/// The sample API's live and paged routes, as the demo tour uses them.
extension ExamplesEndToEndTests {
    struct LiveScores: EventStreamEndpoint {
        typealias Event = SampleScore
        var path: EndpointPath { "/live/scores" }
    }

    struct Posts: Endpoint {
        typealias Response = [SamplePost]
        var path: EndpointPath { "/posts" }
    }

    /// The sample API's live score: the first connection is cut after three goals, the event source
    /// resumes after the third with `Last-Event-ID`, and the `204` after the last goal ends it.
    @Test(arguments: TransportKind.allCases)
    func theLiveScoreIsCutOnceResumedAndEnds(kind: TransportKind) async throws {
        let api = try await SampleSocialAPI.start()
        defer { Task { try? await api.shutdown() } }
        let client = Client(baseURL: api.baseURL, transport: kind.make())
        var goals: [SampleScore] = []
        for try await event in client.events(for: LiveScores()) { goals.append(event.value) }
        #expect(goals.map(\.minute) == [12, 27, 45, 61, 78, 90])
        #expect(goals.last.map { [$0.home, $0.away] } == [3, 3])
        let resumedAfter = api.server.recordedRequests.filter { $0.path == "/live/scores" }.map { $0.header("Last-Event-ID") }
        #expect(resumedAfter == [nil, "3", "6"])
    }

    @Test(arguments: TransportKind.allCases)
    func thePostsAreWalkedByTheirLinks(kind: TransportKind) async throws {
        let api = try await SampleSocialAPI.start()
        defer { Task { try? await api.shutdown() } }
        let client = Client(baseURL: api.baseURL, transport: kind.make())
        var posts: [SamplePost] = []
        for try await post in client.pages(for: Posts()).items { posts.append(post) }
        #expect(posts.map(\.id) == Array(1...12))
        #expect(api.server.recordedRequests.map(\.target) == ["/posts", "/posts?page=2", "/posts?page=3"])
    }
}
