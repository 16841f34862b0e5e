import Courier
import CourierAsyncHTTPClient
import CourierCache
import CourierTestSupport
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// A sign-out's clear wins over a response of that user still on its way, and says how it ended.
@Suite(.timeLimit(.minutes(2))) struct SignOutClearTests {
    @Test func aResponseOnItsWayWhenItsUserSignsOutIsNeverStored() async throws {
        let server = try await MockServer.start()
        defer { Task { try? await server.shutdown() } }
        let arrived = Level()
        let gate = Level()
        server.route("GET", "/profile") { _ in
            arrived.add()
            await gate.wait(until: 1)
            return .json(#"{"name":"alice"}"#, headers: [MockHeader("Cache-Control", "max-age=600")])
        }
        let credentials = CredentialStore(.bearer("token-of-alice", identity: "alice"))
        let cache = HTTPCache(storage: InMemoryCacheStorage(maximumSize: 1 << 20))
        let client = Client(
            baseURL: server.baseURL, transport: AsyncHTTPClientTransport(), middlewares: [CredentialsMiddleware(provider: credentials), cache])
        let call = Task { try await client.response(for: Feed(path: "/profile"), cachePolicy: .followHTTP) }
        await arrived.wait(until: 1)
        // The user signs out while the answer is on its way.
        #expect(try await cache.clear(identity: "alice") == 0)
        gate.raise(to: 1)
        #expect(try await call.value.source == .network)
        await cache.flush()
        #expect(try await cache.entries().isEmpty, "the clear won")
        // A call made after the clear is stored as usual.
        _ = try await client.response(for: Feed(path: "/profile"), cachePolicy: .followHTTP)
        await cache.flush()
        #expect(try await cache.entries().count == 1)
    }

    @Test func aSignOutClearSaysHowItEndedAndTriesAgain() async throws {
        let storage = StorageBreakerTests.SickStorage()
        let cache = HTTPCache(storage: storage)
        let credentials = CredentialStore(.bearer("token-of-alice", identity: "alice"))
        let outcomes = AsyncStream<Result<Int, any Error>>.makeStream()
        cache.clearPartition(onSignOutOf: credentials) { identity, result in
            #expect(identity == "alice")
            outcomes.continuation.yield(result)
        }
        var results = outcomes.stream.makeAsyncIterator()

        storage.failing.withLock { $0 = true }
        let before = storage.reached.current
        credentials.signOut()
        let failed = await results.next()
        #expect(throws: (any Error).self) { try failed?.get() }
        #expect(storage.reached.current - before >= 3, "tried three times")

        storage.failing.withLock { $0 = false }
        credentials.update(.bearer("token-of-alice", identity: "alice"))
        credentials.signOut()
        let cleared = await results.next()
        #expect(try cleared?.get() == 0)
    }
}
