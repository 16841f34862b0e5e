import Courier
import CourierTestSupport
import CourierAsyncHTTPClient
import CourierCache
import CourierCombine
import CourierTesting
import Foundation
import Testing
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

@Suite struct CacheBehaviourTests {
    /// A cacheable 404 page over the client's limit is the server's answer, not a body too large, and
    /// is not stored cut short; one within the limit is stored.
    @Test func anErrorPageOverTheLimitIsTheServersErrorAndIsNotStoredCutShort() async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        let client = Client(baseURL: fixture.server.baseURL, transport: AsyncHTTPClientTransport(), middlewares: [fixture.cache]) {
            $0.maximumBodySize = 1 << 20
            $0.cachePolicy = .followHTTP
        }
        let page = "<html>" + String(repeating: "x", count: 3 << 20) + "</html>"
        fixture.server.route("GET", "/big", respond: .text(page, status: 404, contentType: "text/html", headers: [MockHeader("Cache-Control", "max-age=600")]))
        fixture.server.route("GET", "/small", respond: .text("<html>gone</html>", status: 404, contentType: "text/html", headers: [MockHeader("Cache-Control", "max-age=600")]))
        for _ in 0..<2 {
            let error = await #expect(throws: CourierError.self) { try await client.send(Feed(path: "/big")) }
            #expect(error?.status?.code == 404)
            #expect(error?.kind != .bodyTooLarge)
            await #expect(throws: CourierError.self) { try await client.send(Feed(path: "/small")) }
        }
        #expect(fixture.server.requestCount("/big") == 2)
        #expect(fixture.server.requestCount("/small") == 1)
    }

    @Test func usersNeverSeeEachOthersDataAndSignOutClearsTheirPartition() async throws {
        let credentials = CredentialStore(.bearer("token-a", identity: "alice"))
        let fixture = try await CacheFixture.make(extraMiddlewares: [CredentialsMiddleware(provider: credentials)])
        defer { Task { await fixture.tearDown() } }
        fixture.server.route("GET", "/feed") { request in
            .json(#"{"owner":"\#(request.header("Authorization") ?? "")"}"#, headers: [MockHeader("Cache-Control", "max-age=600")])
        }
        fixture.cache.clearPartition(onSignOutOf: credentials)
        #expect(try await fixture.client.send(Feed(), cachePolicy: .alwaysUseCache)["owner"]?.string == "Bearer token-a")
        credentials.update(.bearer("token-b", identity: "bob"))
        #expect(try await fixture.client.send(Feed(), cachePolicy: .alwaysUseCache)["owner"]?.string == "Bearer token-b")
        credentials.update(.bearer("token-a2", identity: "alice"))
        let alice = try await fixture.client.response(for: Feed(), cachePolicy: .alwaysUseCache)
        #expect(alice.source == .cache)
        #expect(alice.value["owner"]?.string == "Bearer token-a")
        credentials.signOut()
        // The partition is cleared in the background: wait until alice's entry is gone, bob's kept.
        let cleared = try await eventually {
            return try await fixture.cache.statistics().entryCount == 1
        }
        #expect(cleared, "alice's partition was not cleared")
        credentials.update(.bearer("token-a3", identity: "alice"))
        #expect(try await fixture.client.response(for: Feed(), cachePolicy: .alwaysUseCache).source == .network)
    }

    @Test func entriesPersistAcrossClientsOnTheSameFile() async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        countingRoute(fixture.server, headers: [MockHeader("Cache-Control", "max-age=600")])
        _ = try await fixture.client.send(Feed(), cachePolicy: .followHTTP)
        // Another cache on the file reads what this one has committed.
        await fixture.cache.flush()
        let reopened = try SQLiteCacheStorage(fileURL: fixture.directory.appendingPathComponent("cache.sqlite"), maximumSize: 10 << 20)
        let client = Client(baseURL: fixture.server.baseURL, transport: AsyncHTTPClientTransport(), middlewares: [HTTPCache(storage: reopened)])
        let response = try await client.response(for: Feed(), cachePolicy: .followHTTP)
        #expect(response.source == .cache)
        #expect(response.value["n"]?.int == 1)
        #expect(fixture.server.requestCount("/feed") == 1)
    }

    @Test func networkFirstFallsBackToStaleDataWhenTheServerIsDown() async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        countingRoute(fixture.server, headers: [MockHeader("Cache-Control", "max-age=60")])
        _ = try await fixture.client.send(Feed(), cachePolicy: .networkFirst)
        fixture.clock.advance(by: 3600)
        try await fixture.server.goDown()
        let offline = try await fixture.client.response(for: Feed(), cachePolicy: .networkFirst)
        #expect(offline.source == .stale)
        #expect(offline.value["n"]?.int == 1)
        // Beyond the offline allowance the error comes through.
        fixture.clock.advance(by: 8 * 24 * 3600)
        let error = await #expect(throws: CourierError.self) { try await fixture.client.send(Feed(), cachePolicy: .networkFirst) }
        #expect(error?.kind == .noConnection)
    }

    @Test func staleIfErrorServesOnA503() async throws {
        let fixture = try await CacheFixture.make(offlineAllowance: nil)
        defer { Task { await fixture.tearDown() } }
        fixture.server.route("GET", "/feed", script: [
            .json(#"{"n":1}"#, headers: [MockHeader("Cache-Control", "max-age=10, stale-if-error=300")]),
            .status(503),
        ])
        _ = try await fixture.client.send(Feed(), cachePolicy: .followHTTP)
        fixture.clock.advance(by: 60)
        let stale = try await fixture.client.response(for: Feed(), cachePolicy: .followHTTP)
        #expect(stale.source == .stale)
        fixture.clock.advance(by: 600)
        let error = await #expect(throws: CourierError.self) { try await fixture.client.send(Feed(), cachePolicy: .followHTTP) }
        #expect(error?.status?.code == 503)
    }

    @Test func cacheThenNetworkYieldsTwoValuesThenFinishes() async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        countingRoute(fixture.server, headers: [])
        var first: [Int] = []
        for try await update in fixture.client.updates(for: Feed(), cachePolicy: .useCacheAndRequest) {
            first.append(update.value["n"]?.int ?? -1)
        }
        #expect(first == [1])
        var second: [(Int, ResponseSource)] = []
        for try await update in fixture.client.updates(for: Feed(), cachePolicy: .useCacheAndRequest) {
            second.append((update.value["n"]?.int ?? -1, update.source))
        }
        #expect(second.map(\.0) == [1, 2])
        #expect(second.map(\.1) == [.cache, .network])
        // Without recache, the cache keeps n=2 although the network said 3.
        var third: [Int] = []
        for try await update in fixture.client.updates(for: Feed(), cachePolicy: .useCacheAndRequestWithoutRecache) {
            third.append(update.value["n"]?.int ?? -1)
        }
        #expect(third == [2, 3])
        #expect(try await fixture.client.send(Feed(), cachePolicy: .cacheOnly)["n"]?.int == 2)
    }

    @Test func unchangedSecondValuesCanBeSkipped() async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        fixture.server.route("GET", "/feed", respond: .json(#"{"same":true}"#))
        _ = try await fixture.client.send(Feed(), cachePolicy: .networkOnly)
        var count = 0
        for try await _ in fixture.client.updates(for: Feed(), cachePolicy: .useCacheAndRequest, skipUnchanged: true) { count += 1 }
        #expect(count == 1)
        #expect(fixture.server.requestCount("/feed") == 2)
    }

    @Test func thePublisherSendsNextNextCompleted() async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        countingRoute(fixture.server, headers: [])
        _ = try await fixture.client.send(Feed(), cachePolicy: .networkOnly)
        let events = Locked<[String]>([])
        let cancellable = Locked<AnyCancellable?>(nil)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let subscription = fixture.client.publisher(for: Feed(), cachePolicy: .useCacheAndRequest).sink(
                receiveCompletion: { completion in
                    events.withLock { $0.append("completed") }
                    done.resume()
                },
                receiveValue: { value in events.withLock { $0.append("next \(value.value["n"]?.int ?? -1) \(value.source)") } }
            )
            cancellable.withLock { $0 = subscription }
        }
        #expect(events.current == ["next 1 cache", "next 2 network", "completed"])
    }

    @Test func thePublisherFailsWithACourierError() async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        fixture.server.route("GET", "/feed", respond: .json(#"{"message":"Nope"}"#, status: 403))
        let failure = Locked<CourierError?>(nil)
        let cancellable = Locked<AnyCancellable?>(nil)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let subscription = fixture.client.publisher(for: Feed()).sink(
                receiveCompletion: { completion in
                    if case .failure(let error) = completion { failure.withLock { $0 = error } }
                    done.resume()
                },
                receiveValue: { _ in }
            )
            cancellable.withLock { $0 = subscription }
        }
        #expect(failure.current?.errorDescription == "Nope")
    }

    @Test func concurrentIdenticalGETsShareOneCallAndCancelAlone() async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        fixture.server.route("GET", "/feed", respond: MockResponse.json(#"{"n":1}"#, headers: [MockHeader("Cache-Control", "max-age=600")]).with(fault: .delayHeaders(.milliseconds(300))))
        let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<1000 {
                group.addTask {
                    let task = Task { try await fixture.client.send(Feed(), cachePolicy: .followHTTP) }
                    if index % 3 == 0 {
                        try await Task.sleep(for: .milliseconds(Int.random(in: 0...100)))
                        task.cancel()
                    }
                    do {
                        return try await task.value["n"]?.int == 1 ? "ok" : "wrong"
                    } catch let error as CourierError where error.kind == .cancelled {
                        return "cancelled"
                    }
                }
            }
            return try await group.reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
        }
        // One request, and one more each time the caller leading it was cancelled: never one per
        // caller (the ~600 left waiting would all ask at once).
        #expect(fixture.server.requestCount("/feed") < 20)
        #expect(outcomes["wrong"] == nil)
        #expect((outcomes["ok"] ?? 0) >= 666)
        #expect((outcomes["ok"] ?? 0) + (outcomes["cancelled"] ?? 0) == 1000)
    }

    @Test func aGeneratedOpenAPIClientCanUseTheCache() async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        countingRoute(fixture.server, headers: [MockHeader("Cache-Control", "max-age=600")])
        // This is what a swift-openapi-generator client does for each operation: its transport
        // wrapped by its middlewares, with no Courier request context.
        let transport = AsyncHTTPClientTransport()
        let middleware: any ClientMiddleware = fixture.cache
        func call() async throws -> String {
            let (response, body) = try await middleware.intercept(
                HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/feed"), body: nil,
                baseURL: fixture.server.baseURL, operationID: "getFeed"
            ) { request, body, baseURL in try await transport.send(request, body: body, baseURL: baseURL, operationID: "getFeed") }
            #expect(response.status == .ok)
            return try await String(collecting: try #require(body), upTo: 1 << 20)
        }
        #expect(try await call() == #"{"n":1}"#)
        #expect(try await call() == #"{"n":1}"#)
        #expect(fixture.server.requestCount("/feed") == 1)
    }
}
