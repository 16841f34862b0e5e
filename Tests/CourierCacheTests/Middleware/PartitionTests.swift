import Courier
import CourierAsyncHTTPClient
import CourierCache
import CourierTesting
import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime
import Testing

/// One user's cached data never reaches the next, whatever the order of the middlewares, in a
/// Courier client and in a client shaped like a generated one (no request context). Serialized: its
/// hundred socket cases would otherwise crowd the suites that time their timeouts.
@Suite(.serialized) struct PartitionTests {
    enum Part: String, CaseIterable, Sendable { case cache, retry, refresh, credentials }

    /// Every order of the four middlewares the README's resilience setup uses.
    static let orders: [[Part]] = permutations(Part.allCases)

    /// The pieces of one setup: a server answering with the caller's token, a cache, a store.
    struct Setup {
        let server: MockServer
        let store: CredentialStore
        let cache: HTTPCache
        let directory: URL

        static func make(cacheKnowsCredentials: Bool = false) async throws -> Setup {
            let server = try await MockServer.start()
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-partition-\(UUID().uuidString)")
            let store = CredentialStore(.bearer("token-a", identity: "alice", refreshToken: "r"))
            let cacheStore = try SQLiteCacheStorage(fileURL: directory.appendingPathComponent("cache.sqlite"), maximumSize: 1 << 20)
            let cache = HTTPCache(storage: cacheStore, credentials: cacheKnowsCredentials ? store : nil)
            cache.clearPartition(onSignOutOf: store)
            server.route("GET", "/profile") { request in
                .json(#"{"owner":"\#(request.header("Authorization") ?? "")"}"#, headers: [MockHeader("Cache-Control", "private, max-age=600")])
            }
            return Setup(server: server, store: store, cache: cache, directory: directory)
        }

        func middlewares(_ order: [Part]) -> [any ClientMiddleware] {
            order.map { part -> any ClientMiddleware in
                switch part {
                case .cache: cache
                case .retry: RetryMiddleware()
                case .refresh: TokenRefreshMiddleware(store: store) { old in .bearer("refreshed", identity: old.identity) }
                case .credentials: CredentialsMiddleware(provider: store)
                }
            }
        }

        func tearDown() async {
            try? await server.shutdown()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test(arguments: orders)
    func bobNeverGetsAlicesResponseInACourierClient(order: [Part]) async throws {
        let setup = try await Setup.make()
        defer { Task { await setup.tearDown() } }
        let client = Client(baseURL: setup.server.baseURL, transport: AsyncHTTPClientTransport(), middlewares: setup.middlewares(order))
        let profile = Profile()

        #expect(try await client.send(profile)["owner"]?.string == "Bearer token-a")
        let again = try await client.response(for: profile)
        #expect(again.source == .cache, "Alice's second read comes from her partition")
        setup.store.signOut()
        setup.store.update(.bearer("token-b", identity: "bob"))
        #expect(try await client.send(profile)["owner"]?.string == "Bearer token-b")
        #expect(setup.server.requestCount("/profile") == 2)
    }

    @Test(arguments: orders, [false, true])
    func bobNeverGetsAlicesResponseInAGeneratedClient(order: [Part], cacheKnowsCredentials: Bool) async throws {
        let setup = try await Setup.make(cacheKnowsCredentials: cacheKnowsCredentials)
        defer { Task { await setup.tearDown() } }
        let client = GeneratedStyleClient(baseURL: setup.server.baseURL, middlewares: setup.middlewares(order))

        #expect(try await client.get("/profile").body.contains("Bearer token-a"))
        setup.store.signOut()
        setup.store.update(.bearer("token-b", identity: "bob"))
        #expect(try await client.get("/profile").body.contains("Bearer token-b"))
    }

    @Test func aCacheBeforeTheCredentialsOfAGeneratedClientStoresNothingAndSaysWhy() async throws {
        let setup = try await Setup.make()
        defer { Task { await setup.tearDown() } }
        let logs = LogRecorder()
        let store = InMemoryCacheStorage(maximumSize: 1 << 20)
        let cache = HTTPCache(storage: store, logger: logs.logger)
        let client = GeneratedStyleClient(
            baseURL: setup.server.baseURL, middlewares: [cache, CredentialsMiddleware(provider: setup.store)]
        )
        _ = try await client.get("/profile")
        _ = try await client.get("/profile")
        #expect(setup.server.requestCount("/profile") == 2)
        #expect(try await cache.statistics().entryCount == 0)
        #expect(logs.messages.contains { $0.contains("can't tell which user") })
    }

    /// The app adds the token itself, after the cache, and the client has no credential provider:
    /// the client sees the credentials leave and the cache stores nothing where every user would find it.
    @Test func credentialsAddedByTheAppsOwnMiddlewareAfterTheCacheAreNeverShared() async throws {
        let setup = try await Setup.make()
        defer { Task { await setup.tearDown() } }
        let logs = LogRecorder()
        let store = InMemoryCacheStorage(maximumSize: 1 << 20)
        let cache = HTTPCache(storage: store, logger: logs.logger)
        let client = Client(
            baseURL: setup.server.baseURL, transport: AsyncHTTPClientTransport(),
            middlewares: [cache, BearerFromStore(store: setup.store)]
        )
        #expect(try await client.send(Profile())["owner"]?.string == "Bearer token-a")
        setup.store.signOut()
        setup.store.update(.bearer("token-b", identity: "bob"))
        #expect(try await client.send(Profile())["owner"]?.string == "Bearer token-b")
        #expect(try await cache.statistics().entryCount == 0)
        #expect(logs.messages.contains { $0.contains("can't tell which user") })
    }

    /// A chain that refreshes tokens but has no ``CredentialsMiddleware`` can't tell the cache who
    /// is signed in: the cache stores none of its responses and says so, once.
    @Test(arguments: [false, true])
    func aChainThatCantTellUsersApartSaysSoOnce(listsCredentials: Bool) async throws {
        let setup = try await Setup.make()
        defer { Task { await setup.tearDown() } }
        let logs = LogRecorder()
        let store = InMemoryCacheStorage(maximumSize: 1 << 20)
        var middlewares: [any ClientMiddleware] = [
            HTTPCache(storage: store, logger: logs.logger), TokenRefreshMiddleware(store: setup.store) { $0 }, BearerFromStore(store: setup.store),
        ]
        if listsCredentials { middlewares.append(CredentialsMiddleware(provider: setup.store)) }
        let client = Client(baseURL: setup.server.baseURL, transport: AsyncHTTPClientTransport(), middlewares: middlewares)
        for _ in 0..<3 { _ = try await client.send(Profile()) }
        #expect(setup.server.requestCount("/profile") == (listsCredentials ? 1 : 3))
        let warnings = logs.messages.filter { $0.contains("can't tell which user") }
        #expect(warnings.count == (listsCredentials ? 0 : 1), "\(logs.messages)")
    }

    @Test(arguments: orders)
    func aTokenRefreshKeepsTheUsersCacheInACourierClient(order: [Part]) async throws {
        let setup = try await Setup.make()
        defer { Task { await setup.tearDown() } }
        setup.server.route("GET", "/inbox") { request in
            request.header("Authorization") == "Bearer refreshed" ? .json("[]") : .status(401)
        }
        let client = Client(baseURL: setup.server.baseURL, transport: AsyncHTTPClientTransport(), middlewares: setup.middlewares(order))

        _ = try await client.send(Profile())
        _ = try await client.send(Inbox())
        #expect(setup.store.credentials?.headers[.authorization] == "Bearer refreshed")
        let cached = try await client.response(for: Profile())
        #expect(cached.source == .cache)
        #expect(cached.value["owner"]?.string == "Bearer token-a")
        #expect(setup.server.requestCount("/profile") == 1)
    }

    @Test func aTokenRefreshKeepsTheUsersCacheInAGeneratedClient() async throws {
        let setup = try await Setup.make(cacheKnowsCredentials: true)
        defer { Task { await setup.tearDown() } }
        setup.server.route("GET", "/inbox") { request in
            request.header("Authorization") == "Bearer refreshed" ? .json("[]") : .status(401)
        }
        // The order the issue was found with: credentials on both sides of the cache.
        let parts = setup.middlewares([.credentials, .cache, .retry, .refresh, .credentials])
        let client = GeneratedStyleClient(baseURL: setup.server.baseURL, middlewares: parts)

        #expect(try await client.get("/profile").body.contains("Bearer token-a"))
        #expect(try await client.get("/inbox").status == .ok)
        #expect(setup.store.credentials?.headers[.authorization] == "Bearer refreshed")
        #expect(try await client.get("/profile").body.contains("Bearer token-a"), "served from Alice's partition")
        #expect(setup.server.requestCount("/profile") == 1)
    }

    static func permutations<T>(_ items: [T]) -> [[T]] {
        guard items.count > 1 else { return [items] }
        return items.indices.flatMap { index -> [[T]] in
            var rest = items
            let first = rest.remove(at: index)
            return permutations(rest).map { [first] + $0 }
        }
    }
}

struct Profile: Endpoint {
    typealias Response = JSON
    var path: EndpointPath { "/profile" }
    var cachePolicy: CachePolicy? { .followHTTP }
}

/// An app's own middleware that adds the store's token (instead of ``CredentialsMiddleware``).
struct BearerFromStore: ClientMiddleware {
    let store: CredentialStore

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if let token = store.credentials?.headers[.authorization] { request.headerFields[.authorization] = token }
        return try await next(request, body, baseURL)
    }
}

struct Inbox: Endpoint {
    typealias Response = JSON
    var path: EndpointPath { "/inbox" }
}

/// What a swift-openapi-generator client does for each operation: the transport wrapped by the
/// middlewares, first one outermost, with no Courier request context.
struct GeneratedStyleClient {
    let baseURL: URL
    let middlewares: [any ClientMiddleware]
    var transport: any ClientTransport = AsyncHTTPClientTransport()

    func get(_ path: String) async throws -> (status: HTTPResponse.Status, body: String) {
        let transport = self.transport
        var next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?) = { request, body, baseURL in
            try await transport.send(request, body: body, baseURL: baseURL, operationID: "op")
        }
        for middleware in middlewares.reversed() {
            let inner = next
            next = { request, body, baseURL in
                try await middleware.intercept(request, body: body, baseURL: baseURL, operationID: "op", next: inner)
            }
        }
        let (response, body) = try await next(HTTPRequest(method: .get, scheme: nil, authority: nil, path: path), nil, baseURL)
        let text = if let body { try await String(collecting: body, upTo: 1 << 20) } else { "" }
        return (response.status, text)
    }
}
