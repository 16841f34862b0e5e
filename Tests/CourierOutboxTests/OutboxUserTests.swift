import Courier
import CourierOutbox
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// An item belongs to the user signed in at enqueue: it is never sent with another user's
/// credentials, and the app chooses at sign-out whether it is kept or removed.
///
/// Five minutes: on Linux every URLSession's work runs on one shared queue, and under Thread
/// Sanitizer, beside the stress suite's 10,000 calls, a URLSession case here once ran past three.
@Suite(.timeLimit(.minutes(5))) struct OutboxUserTests {
    @Test(arguments: Transport.allCases)
    func anItemOfAliceIsNeverSentWithBobsToken(_ transport: Transport) async throws {
        let store = CredentialStore(.bearer("token-of-alice", identity: "alice"))
        try await withOutbox(transport, store: store) { server, outbox, clock, _ in
            acceptMessages(on: server)
            try await server.goDown()
            try await outbox.enqueue(PostMessage(conversation: 1, text: "from alice"))
            await clock.waitForSleepers(count: 1)
            try await server.comeUp()
            store.update(.bearer("token-of-bob", identity: "bob"))
            try await outbox.enqueue(PostMessage(conversation: 1, text: "from bob"), group: "bob")
            await outbox.flush()
            #expect(texts(server) == ["from bob"])
            #expect(server.recordedRequests.allSatisfy { $0.header("Authorization") == "Bearer token-of-bob" })
            let waiting = try await outbox.items()
            #expect(waiting.map(\.identity) == ["alice"] && waiting.map(\.state) == [.waiting])

            store.signOut()
            await outbox.flush()
            #expect(server.recordedRequests.count == 1)

            store.update(.bearer("token-of-alice-2", identity: "alice"))
            await outbox.resume()
            #expect(try await eventually { try await outbox.items().isEmpty })
            #expect(texts(server) == ["from bob", "from alice"])
            #expect(server.recordedRequests.last?.header("Authorization") == "Bearer token-of-alice-2")
        }
    }

    @Test(arguments: Transport.allCases)
    func aUsersItemsGoOnTheirOwnSoonAfterTheyAreBack(_ transport: Transport) async throws {
        let store = CredentialStore(.bearer("token-of-bob", identity: "bob"))
        try await withOutbox(transport, store: store) { server, outbox, clock, _ in
            acceptMessages(on: server)
            store.update(.bearer("token-of-alice", identity: "alice"))
            try await server.goDown()
            try await outbox.enqueue(PostMessage(conversation: 1, text: "alice's"))
            await clock.waitForSleepers(count: 1)
            try await server.comeUp()
            store.update(.bearer("token-of-bob", identity: "bob"))
            clock.advance(by: .seconds(1))
            // The backoff ended while Bob is signed in: the item waits for Alice, and the outbox
            // looks again 30 s later, then again, without being asked.
            await clock.waitForSleepers(count: 1)
            #expect(clock.sleeps.last == .seconds(30))
            clock.advance(by: .seconds(30))
            await clock.waitForSleepers(count: 1)
            #expect(server.recordedRequests.isEmpty)
            store.update(.bearer("token-of-alice", identity: "alice"))
            clock.advance(by: .seconds(30))
            #expect(try await eventually { try await outbox.items().isEmpty })
            #expect(server.recordedRequests.map { $0.header("Authorization") } == ["Bearer token-of-alice"])
        }
    }

    /// A provider that says Alice for its first `aliceCalls` answers, then Bob: the user changes
    /// between the outbox's check and the call's start.
    final class SwitchingProvider: CredentialProvider {
        let calls = Locked(0)
        let aliceCalls: Int

        init(aliceCalls: Int) { self.aliceCalls = aliceCalls }

        func currentCredentials() async -> Credentials? {
            let call = calls.withLock { calls in
                calls += 1
                return calls
            }
            return call <= aliceCalls ? .bearer("token-of-alice", identity: "alice") : .bearer("token-of-bob", identity: "bob")
        }
    }

    /// A call that started with nobody signed in stays nobody's: a user who signs in between its
    /// attempts lends it no credentials, whether it is a kept write or any call.
    @Test(arguments: Transport.allCases, [true, false])
    func anAnonymousCallNeverPicksUpAUserWhoSignsInBetweenItsAttempts(_ transport: Transport, kept: Bool) async throws {
        try await withServer { server in
            try await withFolder { folder in
                let store = CredentialStore()
                let arrivals = Locked(0)
                server.route(nil, "/conversations/*") { _ in
                    let arrival = arrivals.withLock { arrivals in
                        arrivals += 1
                        return arrivals
                    }
                    guard arrival > 1 else {
                        store.update(.bearer("token-of-alice", identity: "alice"))
                        return .json(#"{"message":"busy"}"#, status: 503)
                    }
                    return .json(#"{"text":"ok"}"#, status: 201)
                }
                let retry = RetryMiddleware(policy: RetryPolicy(
                    maximumAttempts: 3, baseDelay: .milliseconds(5), maximumDelay: .milliseconds(20), totalDeadline: .seconds(30)))
                let client = Client(
                    baseURL: server.baseURL, transport: transport.make(), middlewares: [retry, CredentialsMiddleware(provider: store)])
                if kept {
                    let outbox = try Outbox(client: client, folder: folder, clock: ManualClock())
                    try await outbox.enqueue(PostMessage(conversation: 1, text: "nobody's"))
                    #expect(try await eventually { try await outbox.items().isEmpty })
                    await outbox.stop()
                } else {
                    _ = try await client.send(Conversation())
                }
                #expect(server.recordedRequests.count == 2)
                #expect(server.recordedRequests.allSatisfy { $0.header("Authorization") == nil })
            }
        }
    }

    private struct Conversation: Endpoint {
        typealias Response = Posted
        var path: EndpointPath { "/conversations/1" }
    }

    @Test(arguments: Transport.allCases)
    func aUserWhoChangesJustBeforeTheCallStartsGetsNothingSent(_ transport: Transport) async throws {
        try await withServer { server in
            try await withFolder { folder in
                acceptMessages(on: server)
                // Enqueue and the outbox's check see Alice; the call itself starts as Bob's.
                let provider = SwitchingProvider(aliceCalls: 2)
                let client = Client(baseURL: server.baseURL, transport: transport.make(), middlewares: [CredentialsMiddleware(provider: provider)])
                let outbox = try Outbox(client: client, folder: folder, clock: ManualClock())
                try await outbox.enqueue(PostMessage(conversation: 1, text: "alice's"))
                await outbox.flush()
                #expect(server.recordedRequests.isEmpty)
                let items = try await outbox.items()
                #expect(items.map(\.identity) == ["alice"] && items.map(\.state) == [.waiting] && items.map(\.sends) == [0])
                await outbox.stop()
            }
        }
    }

    @Test(arguments: Transport.allCases)
    func signOutKeepsOrClearsAUsersItems(_ transport: Transport) async throws {
        let store = CredentialStore(.bearer("token-of-alice", identity: "alice"))
        try await withOutbox(transport, store: store) { server, outbox, clock, folder in
            acceptMessages(on: server)
            try await server.goDown()
            try await outbox.enqueue(PostMessage(conversation: 1, text: "kept"), group: "a")
            try await outbox.enqueue(PostMessage(conversation: 2, text: "cleared"), group: "b")
            // Alice's first attempts have failed (and back off) before Carol signs in.
            await clock.waitForSleepers(count: 2)
            store.update(.bearer("token-of-carol", identity: "carol"))
            try await outbox.enqueue(PostMessage(conversation: 3, text: "carol's"), group: "c")
            await clock.waitForSleepers(count: 3)
            store.signOut()
            try await server.comeUp()

            // Carol signed out and chose to drop her writes; Alice's stay.
            let changes = outbox.changes()
            let cleared = try await outbox.clear(identity: "carol")
            #expect(cleared.map(\.group) == ["c"])
            #expect(await collect(changes, count: 1).map(\.name) == ["discarded"])
            #expect(try await outbox.items().map(\.group) == ["a", "b"])
            await outbox.flush()
            #expect(server.recordedRequests.isEmpty)

            store.update(.bearer("token-of-alice", identity: "alice"))
            await outbox.resume()
            #expect(try await eventually { try await outbox.items().isEmpty })
            #expect(Set(texts(server)) == ["kept", "cleared"])
            #expect(try folderBytes(folder).range(of: Data("carol's".utf8)) == nil)
        }
    }

    @Test(arguments: Transport.allCases)
    func itemsOutliveTheOutboxThatKeptThemAndKeepTheirKeys(_ transport: Transport) async throws {
        try await withServer { server in
            try await withFolder { folder in
                acceptMessages(on: server)
                let client = signedInClient(server, transport)
                try await server.goDown()
                let first = try Outbox(client: client, folder: folder, clock: ManualClock())
                for text in ["one", "two"] { try await first.enqueue(PostMessage(conversation: 1, text: text)) }
                let keys = try await first.items().count
                #expect(keys == 2)
                await first.stop()
                try await server.comeUp()

                let second = try Outbox(client: client, folder: folder, clock: ManualClock())
                await second.resume()
                #expect(try await eventually { try await second.items().isEmpty })
                await second.stop()
                #expect(texts(server).suffix(2) == ["one", "two"])
            }
        }
    }
}
