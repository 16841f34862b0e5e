import Courier
import CourierAsyncHTTPClient
import CourierCache
import CourierTesting
import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime
import Testing

/// The order a generated OpenAPI client folds: the cache first, the app's own auth middleware (a
/// plain `ClientMiddleware`, no Courier context of its own) below it. Whatever the transport, one
/// user's answer never reaches the next: a Courier transport tells the cache what left, and over
/// any other the cache keeps only what a shared cache may keep from a request with credentials.
@Suite(.serialized) struct GeneratedChainPartitionTests {
    enum Carrier: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case urlSession, asyncHTTPClient, foreign

        func make() -> any ClientTransport {
            switch self {
            case .urlSession: URLSessionTransport()
            case .asyncHTTPClient: AsyncHTTPClientTransport()
            case .foreign: ForeignTransport(inner: AsyncHTTPClientTransport())
            }
        }

        var testDescription: String { rawValue }
    }

    /// A server that answers with the caller's token, `Cache-Control` as given.
    static func server(cacheControl: String) async throws -> MockServer {
        let server = try await MockServer.start()
        server.route("GET", "/profile") { request in
            .json(#"{"owner":"\#(request.header("Authorization") ?? request.header("X-Tenant-Key") ?? "")"}"#,
                  headers: [MockHeader("Cache-Control", cacheControl)])
        }
        return server
    }

    @Test(arguments: Carrier.allCases, [CacheSharing.private, .shared])
    func bobNeverGetsAlicesAnswerWhenTheAppsAuthSitsBelowTheCache(carrier: Carrier, sharing: CacheSharing) async throws {
        let server = try await Self.server(cacheControl: "max-age=600")
        defer { Task { try? await server.shutdown() } }
        let tokens = CredentialStore(.bearer("token-a", identity: "alice"))
        let cache = HTTPCache(storage: InMemoryCacheStorage(maximumSize: 1 << 20), sharing: sharing)
        let client = GeneratedStyleClient(
            baseURL: server.baseURL, middlewares: [cache, BearerFromStore(store: tokens)], transport: carrier.make())

        #expect(try await client.get("/profile").body.contains("Bearer token-a"))
        tokens.update(.bearer("token-b", identity: "bob"))
        #expect(try await client.get("/profile").body.contains("Bearer token-b"))
        #expect(server.requestCount("/profile") == 2)
        #expect(try await cache.statistics().entryCount == 0)
    }

    /// A secret field on the cache's own list (not the default one), added below it: the transport
    /// judges what left by the cache's list too.
    @Test(arguments: [Carrier.urlSession, .asyncHTTPClient])
    func aSecretOnTheCachesListAddedBelowItKeepsTenantsApart(carrier: Carrier) async throws {
        let server = try await Self.server(cacheControl: "max-age=600")
        defer { Task { try? await server.shutdown() } }
        let key = Locked("tenant-a")
        var cache = HTTPCache(storage: InMemoryCacheStorage(maximumSize: 1 << 20))
        cache.redaction.headerNames.insert("x-tenant-key")
        let client = GeneratedStyleClient(
            baseURL: server.baseURL, middlewares: [cache, HeaderAdder(name: "X-Tenant-Key") { key.withLock { $0 } }], transport: carrier.make())

        #expect(try await client.get("/profile").body.contains("tenant-a"))
        key.withLock { $0 = "tenant-b" }
        #expect(try await client.get("/profile").body.contains("tenant-b"))
        #expect(server.requestCount("/profile") == 2)
    }

    /// What the rule costs and keeps: below a Courier transport, a request that left without
    /// credentials is cached as before; over a transport that can't say, a response a shared cache
    /// may keep from a request with credentials (`public`) is cached, and one it may not is not.
    @Test(arguments: Carrier.allCases, ["max-age=600", "public, max-age=600"])
    func whatAChainWithoutCredentialsStillCaches(carrier: Carrier, cacheControl: String) async throws {
        let server = try await Self.server(cacheControl: cacheControl)
        defer { Task { try? await server.shutdown() } }
        let cache = HTTPCache(storage: InMemoryCacheStorage(maximumSize: 1 << 20))
        let client = GeneratedStyleClient(baseURL: server.baseURL, middlewares: [cache], transport: carrier.make())

        _ = try await client.get("/profile")
        _ = try await client.get("/profile")
        let cached = carrier != .foreign || cacheControl.hasPrefix("public")
        #expect(server.requestCount("/profile") == (cached ? 1 : 2))
    }

    /// A cache given the provider the auth middleware reads knows who is signed in, so over a
    /// transport that can't say what left it caches as much as over a Courier one, each user apart.
    @Test func aCacheThatKnowsWhoIsSignedInCachesOverAnyTransport() async throws {
        let server = try await Self.server(cacheControl: "max-age=600")
        defer { Task { try? await server.shutdown() } }
        let tokens = CredentialStore()
        let cache = HTTPCache(storage: InMemoryCacheStorage(maximumSize: 1 << 20), credentials: tokens)
        let client = GeneratedStyleClient(
            baseURL: server.baseURL, middlewares: [cache, BearerFromStore(store: tokens)], transport: Carrier.foreign.make())

        _ = try await client.get("/profile")
        _ = try await client.get("/profile")
        #expect(server.requestCount("/profile") == 1, "nobody's answer, cached")
        tokens.update(.bearer("token-a", identity: "alice"))
        #expect(try await client.get("/profile").body.contains("Bearer token-a"))
        #expect(try await client.get("/profile").body.contains("Bearer token-a"))
        tokens.update(.bearer("token-b", identity: "bob"))
        #expect(try await client.get("/profile").body.contains("Bearer token-b"))
        #expect(server.requestCount("/profile") == 3)
    }

    /// Coalescing follows the same rule: callers of one identical request in flight share its answer
    /// only when nothing below made it someone's (or could have, unseen).
    @Test(arguments: Carrier.allCases, [false, true])
    func coalescedCallersGetTheirOwnAnswerWhenAuthIsAddedBelow(carrier: Carrier, addsAuth: Bool) async throws {
        let server = try await MockServer.start()
        defer { Task { try? await server.shutdown() } }
        let arrived = AsyncStream<Void>.makeStream()
        server.route("GET", "/slow") { request in
            arrived.continuation.yield()
            // Long enough for the second caller, started once this request arrived, to join it.
            try? await Task.sleep(for: .milliseconds(500))
            return .json(#"{"owner":"\#(request.header("Authorization") ?? "")"}"#)
        }
        let tokens = CredentialStore(.bearer("token-a", identity: "alice"))
        var middlewares: [any ClientMiddleware] = [CoalescingMiddleware()]
        if addsAuth { middlewares.append(BearerFromStore(store: tokens)) }
        let client = GeneratedStyleClient(baseURL: server.baseURL, middlewares: middlewares, transport: carrier.make())

        async let first = client.get("/slow")
        var arrivals = arrived.stream.makeAsyncIterator()
        _ = await arrivals.next()
        async let second = client.get("/slow")
        _ = try await (first, second)
        let shares = !addsAuth && carrier != .foreign
        #expect(server.requestCount("/slow") == (shares ? 1 : 2))
    }
}

/// A transport that is not Courier's: it says nothing of what it sent.
struct ForeignTransport: ClientTransport {
    let inner: any ClientTransport

    func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        // Out of the context's sight, as a transport of another library's would be.
        try await RequestContext.$current.withValue(nil) {
            try await inner.send(request, body: body, baseURL: baseURL, operationID: operationID)
        }
    }
}

/// An app's own middleware that adds a header field the closure gives.
struct HeaderAdder: ClientMiddleware {
    let name: String
    let value: @Sendable () -> String

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if let name = HTTPField.Name(name) { request.headerFields[name] = value() }
        return try await next(request, body, baseURL)
    }
}
