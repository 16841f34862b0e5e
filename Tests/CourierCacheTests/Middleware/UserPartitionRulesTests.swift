import Courier
import CourierAsyncHTTPClient
import CourierCache
import CourierTestSupport
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// In a shared storage, a partition only one named user reads follows a private cache's rules
/// (RFC 9111 §1): `private` is kept for that user and `s-maxage` is ignored; `Set-Cookie` still
/// stays out of the shared storage. The anonymous partition and one keyed by a hashed secret (an
/// API key may stand for many end users) keep the shared rules.
@Suite struct UserPartitionRulesTests {
    private struct Inbox: Endpoint {
        typealias Response = Data
        var apiKey: String?
        var path: EndpointPath { "/inbox" }
        var cachePolicy: CachePolicy? { .followHTTP }
        var headers: HTTPFields {
            var fields = HTTPFields()
            if let apiKey { fields[HTTPField.Name("X-Api-Key")!] = apiKey }
            return fields
        }
    }

    private struct Setup {
        let server: MockServer
        let storage: InMemoryCacheStorage
        let clock: TestDate
        let cache: HTTPCache

        func client(_ user: String?) -> Client {
            let provider = CredentialStore(user.map { .bearer("token-of-\($0)", identity: $0) })
            return Client(baseURL: server.baseURL, transport: AsyncHTTPClientTransport(), middlewares: [CredentialsMiddleware(provider: provider), cache]) {
                $0.redaction.headerNames.insert("x-api-key")
            }
        }
    }

    private func withSetup(_ cacheControl: String, _ body: (Setup) async throws -> Void) async throws {
        try await withServer { server in
            server.route("GET", "/inbox") { _ in
                .text("inbox", headers: [MockHeader("Cache-Control", cacheControl), MockHeader("Set-Cookie", "session=s3cr3t")])
            }
            let storage = InMemoryCacheStorage(maximumSize: 1 << 20)
            let clock = TestDate()
            let cache = HTTPCache(storage: storage, sharing: .shared, now: { clock.now })
            try await body(Setup(server: server, storage: storage, clock: clock, cache: cache))
        }
    }

    @Test func aNamedUsersPrivateAnswerIsKeptForThemWithItsMaxAge() async throws {
        try await withSetup("private, max-age=60, s-maxage=600") { setup in
            let alice = setup.client("alice")
            _ = try await alice.send(Inbox())
            await setup.cache.flush()
            #expect(try await alice.response(for: Inbox()).source == .cache)
            let stored = try await setup.storage.variants(in: nil)
            #expect(stored.count == 1)
            #expect(stored.first?.headers[.setCookie] == nil, "Set-Cookie stays out of a shared storage")
            setup.clock.advance(by: 120)
            #expect(try await alice.response(for: Inbox()).source == .network, "stale after max-age: s-maxage is a shared cache's")
            #expect(setup.server.requestCount("/inbox") == 2)
        }
    }

    @Test(arguments: [false, true])
    func aPrivateAnswerIsNotKeptForNobodyOrForAnAPIKey(withAPIKey: Bool) async throws {
        try await withSetup("private, max-age=60") { setup in
            let caller = setup.client(nil)
            let inbox = Inbox(apiKey: withAPIKey ? "key-of-a-tenant" : nil)
            _ = try await caller.send(inbox)
            await setup.cache.flush()
            #expect(try await caller.response(for: inbox).source == .network)
            #expect(try await setup.storage.variants(in: nil).isEmpty)
        }
    }

    /// The partition keyed by a hashed API key keeps the shared rules: `s-maxage` counts there.
    @Test func anAPIKeysPartitionReadsSMaxAge() async throws {
        try await withSetup("max-age=60, s-maxage=600") { setup in
            let caller = setup.client(nil)
            let inbox = Inbox(apiKey: "key-of-a-tenant")
            _ = try await caller.send(inbox)
            await setup.cache.flush()
            setup.clock.advance(by: 120)
            #expect(try await caller.response(for: inbox).source == .cache)
            #expect(setup.server.requestCount("/inbox") == 1)
        }
    }
}
