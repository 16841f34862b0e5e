import Courier
import CourierAsyncHTTPClient
import CourierCache
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// Secrets that reach a request any way (an app's own middleware, the credentials middleware) keep
/// their owner's responses apart and never rest in the cache's files in clear; clearing a user's
/// data takes the bytes out of the files. Over a socket, on both transports.
@Suite(.serialized) struct SecretsAtRestTests {
    /// A server that answers `/me` with the key it was sent, privately cacheable, and a store.
    struct Setup {
        let server: MockServer
        let directory: URL
        let store: SQLiteCacheStorage
        let cache: HTTPCache

        static func make(vary: String? = nil) async throws -> Setup {
            let server = try await MockServer.start()
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-secrets-\(UUID().uuidString)")
            let store = try SQLiteCacheStorage(fileURL: directory.appendingPathComponent("cache.sqlite"), maximumSize: 1 << 20)
            server.route("GET", "/me") { request in
                var headers = [MockHeader("Cache-Control", "private, max-age=600")]
                if let vary { headers.append(MockHeader("Vary", vary)) }
                // Who called, never the secret itself: the file is searched for the secrets.
                let key = request.header("X-Api-Key").map { $0.replacingOccurrences(of: "key-of-", with: "") }
                let caller = key ?? request.header("Authorization").map { _ in "bearer" } ?? "nobody"
                return .json(#"{"caller":"\#(caller)","marker":"body-of-\#(caller)-zq"}"#, headers: headers)
            }
            return Setup(server: server, directory: directory, store: store, cache: HTTPCache(storage: store))
        }

        /// Every byte of the database, its write-ahead log and its shared memory.
        func fileBytes() async throws -> Data {
            await cache.flush()
            var bytes = Data()
            for suffix in ["", "-wal", "-shm"] {
                let path = directory.appendingPathComponent("cache.sqlite").path + suffix
                if let data = FileManager.default.contents(atPath: path) { bytes += data }
            }
            return bytes
        }

        func tearDown() async {
            await cache.flush()
            await store.close()
            try? await server.shutdown()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    /// An app's own middleware that signs every request with the current user's API key.
    struct APIKeyMiddleware: ClientMiddleware {
        let key: Locked<String>
        func intercept(
            _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
            next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
        ) async throws -> (HTTPResponse, HTTPBody?) {
            var request = request
            request.headerFields[HTTPField.Name("X-Api-Key")!] = key.current
            return try await next(request, body, baseURL)
        }
    }

    struct Me: Endpoint {
        typealias Response = JSON
        var path: EndpointPath { "/me" }
        var cachePolicy: CachePolicy? { .followHTTP }
    }

    @Test(arguments: CacheTransport.allCases, [true, false])
    func aKeyAddedByTheAppsOwnMiddlewareKeepsUsersApart(transport: CacheTransport, cacheFirst: Bool) async throws {
        let setup = try await Setup.make()
        defer { Task { await setup.tearDown() } }
        let key = Locked("key-of-alice")
        let signing = APIKeyMiddleware(key: key)
        let client = Client(
            baseURL: setup.server.baseURL, transport: transport.make(),
            middlewares: cacheFirst ? [setup.cache, signing] : [signing, setup.cache])

        #expect(try await client.send(Me())["caller"]?.string == "alice")
        key.withLock { $0 = "key-of-bob" }
        #expect(try await client.send(Me())["caller"]?.string == "bob", "Bob must never get Alice's response")
        #expect(setup.server.requestCount("/me") == 2)
        if !cacheFirst {
            // The cache saw the key: each key has a partition of its own, so Alice's answer is still hers.
            key.withLock { $0 = "key-of-alice" }
            let again = try await client.response(for: Me())
            #expect(again.value["caller"]?.string == "alice")
            #expect(again.source == .cache)
        }
        // No key in clear in the file, whichever way it went.
        let bytes = try await setup.fileBytes()
        #expect(bytes.range(of: Data("key-of-alice".utf8)) == nil)
        #expect(bytes.range(of: Data("key-of-bob".utf8)) == nil)
    }

    @Test(arguments: CacheTransport.allCases)
    func aVaryAuthorizationTokenIsStoredOnlyAsAKeyedHash(transport: CacheTransport) async throws {
        let setup = try await Setup.make(vary: "Authorization")
        defer { Task { await setup.tearDown() } }
        let credentials = CredentialStore(.bearer("tok-5ecret-alice", identity: "alice"))
        let client = Client(
            baseURL: setup.server.baseURL, transport: transport.make(),
            middlewares: [CredentialsMiddleware(provider: credentials), setup.cache])

        _ = try await client.send(Me())
        let again = try await client.response(for: Me())
        #expect(again.source == .cache, "the hashed selection still matches the same token")
        #expect(try await setup.fileBytes().range(of: Data("tok-5ecret-alice".utf8)) == nil)

        // A new token for the same user is another Vary selection: not served the old one's answer.
        credentials.update(.bearer("tok-5ecret-alice-2", identity: "alice"))
        #expect(try await client.response(for: Me()).source == .network)

        // Reopened from disk, the same token still selects its response (the key lives with the file).
        await setup.cache.flush()
        await setup.store.close()
        let reopenedStore = try SQLiteCacheStorage(fileURL: setup.directory.appendingPathComponent("cache.sqlite"), maximumSize: 1 << 20)
        let reopened = HTTPCache(storage: reopenedStore)
        let client2 = Client(
            baseURL: setup.server.baseURL, transport: transport.make(),
            middlewares: [CredentialsMiddleware(provider: credentials), reopened])
        #expect(try await client2.response(for: Me()).source == .cache)
        await reopenedStore.close()
    }

    /// A token in the query (`?access_token=`) is part of the key, so each token has its own
    /// entry, but the file holds only its keyed hash; a name only the client's list has counts too.
    @Test(arguments: CacheTransport.allCases)
    func aSecretQueryValueIsStoredOnlyAsAKeyedHash(transport: CacheTransport) async throws {
        let setup = try await Setup.make()
        defer { Task { await setup.tearDown() } }
        setup.server.route("GET", "/feed") { _ in
            .json(#"{"items":[]}"#, headers: [MockHeader("Cache-Control", "public, max-age=600")])
        }
        struct Feed: Endpoint {
            typealias Response = JSON
            let token: String
            var path: EndpointPath { "/feed" }
            var query: Parameters { ["access_token": token, "session": "sess-q-zq", "page": 2] }
            var cachePolicy: CachePolicy? { .followHTTP }
            var requiresAuthentication: Bool { false }
        }
        let client = Client(baseURL: setup.server.baseURL, transport: transport.make(), middlewares: [setup.cache]) {
            $0.redaction.queryNames.insert("session")
        }
        _ = try await client.send(Feed(token: "tok-q5ecret-zq"))
        #expect(try await client.response(for: Feed(token: "tok-q5ecret-zq")).source == .cache, "the same token finds its entry")
        #expect(try await client.response(for: Feed(token: "tok-other-zq")).source == .network, "another token is another key")
        let bytes = try await setup.fileBytes()
        for secret in ["tok-q5ecret-zq", "tok-other-zq", "sess-q-zq"] {
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) rests in the file in clear")
        }
        #expect(bytes.range(of: Data("access_token=hmac:".utf8)) != nil, "the key holds the hash")

        // Removing by the URL with the token in it finds the entry: it is hashed the same way.
        var cache = setup.cache
        cache.redaction.queryNames.insert("session")
        let url = try #require(URL(string: setup.server.baseURL.absoluteString + "/feed?access_token=tok-q5ecret-zq&session=sess-q-zq&page=2"))
        #expect(try await cache.remove(url: url) == 1)
        #expect(try await client.response(for: Feed(token: "tok-q5ecret-zq")).source == .network)
    }

    /// A write whose `Location` names a URL with a token invalidates that URL's entry, stored
    /// under the token's hash (RFC 9111 §4.4).
    @Test func aWriteInvalidatesAnEntryKeyedByASecretQueryValue() async throws {
        let setup = try await Setup.make()
        defer { Task { await setup.tearDown() } }
        let version = Locked(1)
        setup.server.route("GET", "/doc") { _ in
            .json(#"{"version":\#(version.current)}"#, headers: [MockHeader("Cache-Control", "public, max-age=600")])
        }
        setup.server.route("POST", "/edit") { _ in
            version.withLock { $0 += 1 }
            return .json("{}", headers: [MockHeader("Location", "/doc?access_token=tok-inv-zq")])
        }
        struct Doc: Endpoint {
            typealias Response = JSON
            var path: EndpointPath { "/doc" }
            var query: Parameters { ["access_token": "tok-inv-zq"] }
            var cachePolicy: CachePolicy? { .followHTTP }
        }
        struct Edit: Endpoint {
            typealias Response = JSON
            var method: HTTPRequest.Method { .post }
            var path: EndpointPath { "/edit" }
        }
        let client = Client(baseURL: setup.server.baseURL, transport: AsyncHTTPClientTransport(), middlewares: [setup.cache])
        #expect(try await client.send(Doc())["version"]?.int == 1)
        #expect(try await client.response(for: Doc()).source == .cache)
        _ = try await client.send(Edit())
        let after = try await client.response(for: Doc())
        #expect(after.source == .network && after.value["version"]?.int == 2, "the write's Location invalidated the entry")
    }

    @Test func signingOutTakesTheUsersBytesOutOfTheFiles() async throws {
        let setup = try await Setup.make()
        defer { Task { await setup.tearDown() } }
        let key = Locked("key-of-carol")
        let credentials = CredentialStore(.bearer("tok-carol", identity: "carol"))
        let client = Client(
            baseURL: setup.server.baseURL, transport: AsyncHTTPClientTransport(),
            middlewares: [setup.cache, CredentialsMiddleware(provider: credentials), APIKeyMiddleware(key: key)])
        _ = try await client.send(Me())
        #expect(try await setup.fileBytes().range(of: Data("body-of-carol-zq".utf8)) != nil, "the body was stored")

        try await setup.cache.clear(identity: "carol")
        #expect(try await setup.fileBytes().range(of: Data("body-of-carol-zq".utf8)) == nil)
        #expect(try await setup.store.totals().count == 0)
    }

    @Test func clearingTheCacheTakesTheBytesOutOfTheFiles() async throws {
        let setup = try await Setup.make()
        defer { Task { await setup.tearDown() } }
        let client = Client(baseURL: setup.server.baseURL, transport: AsyncHTTPClientTransport(), middlewares: [setup.cache])
        _ = try await client.send(Me())
        #expect(try await setup.fileBytes().range(of: Data("body-of-nobody-zq".utf8)) != nil)
        try await setup.cache.clear()
        #expect(try await setup.fileBytes().range(of: Data("body-of-nobody-zq".utf8)) == nil)
    }

    @Test func theCacheFilesArePrivateToTheUser() async throws {
        let setup = try await Setup.make()
        defer { Task { await setup.tearDown() } }
        let client = Client(baseURL: setup.server.baseURL, transport: AsyncHTTPClientTransport(), middlewares: [setup.cache])
        _ = try await client.send(Me())
        for suffix in ["", "-wal", "-shm"] {
            let path = setup.directory.appendingPathComponent("cache.sqlite").path + suffix
            guard FileManager.default.fileExists(atPath: path) else { continue }
            let permissions = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
            #expect(permissions == 0o600, "\(path) is \(String(permissions, radix: 8))")
        }
    }

    @Test func closingEmptiesTheWriteAheadLog() async throws {
        let setup = try await Setup.make()
        defer { Task { try? await setup.server.shutdown(); try? FileManager.default.removeItem(at: setup.directory) } }
        let client = Client(baseURL: setup.server.baseURL, transport: AsyncHTTPClientTransport(), middlewares: [setup.cache])
        _ = try await client.send(Me())
        let wal = setup.directory.appendingPathComponent("cache.sqlite-wal").path
        await setup.cache.flush()
        await setup.store.close()
        let size = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
        #expect(size == 0)
    }

    /// Bad input: a `Vary` naming fifty request fields, the credentials among them, is stored and
    /// matched with the secret hashed; `Vary: *` is never stored.
    @Test func aVaryOfFiftyFieldsAndAVaryStar() async throws {
        let names = (0..<49).map { "X-Field-\($0)" } + ["Authorization"]
        let setup = try await Setup.make(vary: names.joined(separator: ", "))
        defer { Task { await setup.tearDown() } }
        let credentials = CredentialStore(.bearer("tok-fifty", identity: "dave"))
        let client = Client(
            baseURL: setup.server.baseURL, transport: AsyncHTTPClientTransport(),
            middlewares: [CredentialsMiddleware(provider: credentials), setup.cache])
        _ = try await client.send(Me())
        #expect(try await client.response(for: Me()).source == .cache)
        #expect(try await setup.fileBytes().range(of: Data("tok-fifty".utf8)) == nil)

        let star = try await Setup.make(vary: "*")
        defer { Task { await star.tearDown() } }
        let starClient = Client(baseURL: star.server.baseURL, transport: AsyncHTTPClientTransport(), middlewares: [star.cache])
        _ = try await starClient.send(Me())
        #expect(try await starClient.response(for: Me()).source == .network)
    }

    /// One identity per attempt: when the account switches while a call is being retried, the
    /// retry doesn't send the new user's credentials under the old user's partition.
    @Test func anAccountSwitchDuringARetryFilesNothingUnderTheOldUser() async throws {
        let setup = try await Setup.make()
        defer { Task { await setup.tearDown() } }
        let credentials = CredentialStore(.bearer("tok-erin", identity: "erin"))
        setup.server.route("GET", "/flaky") { _ in
            // The first attempt fails, and meanwhile another user signs in.
            credentials.update(.bearer("tok-frank", identity: "frank"))
            return .status(503, headers: [MockHeader("Retry-After", "0")])
        }
        let client = Client(
            baseURL: setup.server.baseURL, transport: AsyncHTTPClientTransport(),
            middlewares: [
                setup.cache, RetryMiddleware(policy: RetryPolicy(baseDelay: .milliseconds(1))), CredentialsMiddleware(provider: credentials),
            ])
        let error = await #expect(throws: CourierError.self) {
            _ = try await client.send(TestCall(path: "/flaky"))
        }
        #expect(error?.kind == .cancelled)
        #expect(setup.server.requestCount("/flaky") == 1, "frank's token never went out for erin's call")
    }

    struct TestCall: Endpoint {
        typealias Response = JSON
        var path: EndpointPath
        var cachePolicy: CachePolicy? { .followHTTP }
    }
}
