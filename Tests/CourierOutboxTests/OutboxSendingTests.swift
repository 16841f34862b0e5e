import Courier
import CourierOutbox
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// Writes kept in an outbox reach a real server once each, in order within their group, with the
/// `Idempotency-Key` fixed at enqueue and the credentials added only when sent.
@Suite(.timeLimit(.minutes(3))) struct OutboxSendingTests {
    @Test(arguments: Transport.allCases)
    func writesArriveInOrderOnceEachWithTheirKeysAndCredentialsAddedWhenSent(_ transport: Transport) async throws {
        try await withOutbox(transport) { server, outbox, _, _ in
            acceptMessages(on: server)
            let changes = outbox.changes()
            var ids: [OutboxItem.ID] = []
            for text in ["one", "two", "three"] {
                ids.append(try await outbox.enqueue(PostMessage(conversation: 1, text: text), group: "c1").id)
            }
            await outbox.flush()
            #expect(texts(server) == ["one", "two", "three"])
            let keys = server.recordedRequests.compactMap { $0.header("Idempotency-Key") }
            #expect(Set(keys).count == 3)
            #expect(server.recordedRequests.allSatisfy { $0.header("Authorization") == "Bearer token-of-alice" })
            #expect(server.recordedRequests.allSatisfy { $0.header("Accept") == "application/json" })
            #expect(try await outbox.items().isEmpty)

            // Each item is enqueued, then sent; sending may start before the next enqueue returns.
            let seen = await collect(changes, count: 9)
            for id in ids {
                #expect(seen.filter { $0.item?.id == id }.map(\.name) == ["enqueued", "sending", "sent"])
            }
            #expect(seen.filter { $0.name == "sent" }.map(\.item?.id) == ids)
            let firstSent = try #require(seen.firstIndex { $0.name == "sent" })
            guard case .sent(_, let delivery) = seen[firstSent] else { Issue.record("not sent"); return }
            #expect(try delivery.decoded(as: Posted.self) == Posted(text: "one"))
            #expect(delivery.response.head.status.code == 201)
        }
    }

    @Test(arguments: Transport.allCases)
    func aSlowGroupHoldsBackItsOwnItemsOnly(_ transport: Transport) async throws {
        try await withOutbox(transport) { server, outbox, _, _ in
            let gate = Level()
            let arrived = Level()
            server.route("POST", "/conversations/1/messages") { request in
                arrived.add()
                await gate.wait(until: 1)
                return .json(request.bodyText, status: 201)
            }
            server.route("POST", "/conversations/2/messages") { request in .json(request.bodyText, status: 201) }
            try await outbox.enqueue(PostMessage(conversation: 1, text: "a1"), group: "1")
            try await outbox.enqueue(PostMessage(conversation: 1, text: "a2"), group: "1")
            await arrived.wait(until: 1)
            try await outbox.enqueue(PostMessage(conversation: 2, text: "b1"), group: "2")
            try await outbox.enqueue(PostMessage(conversation: 2, text: "b2"), group: "2")
            #expect(await eventually { server.requestCount("/conversations/2/messages") == 2 })
            // Group 1's second write waits for its first, whose answer hasn't come.
            #expect(server.requestCount("/conversations/1/messages") == 1)
            gate.raise(to: 1)
            await outbox.flush()
            #expect(texts(server) == ["a1", "b1", "b2", "a2"])
        }
    }

    /// A cancelled `flush()` returns at once; the write it waited for still goes.
    @Test(arguments: Transport.allCases)
    func aCancelledFlushReturnsAndTheSendingGoesOn(_ transport: Transport) async throws {
        try await withOutbox(transport) { server, outbox, _, _ in
            let gate = Level()
            let arrived = Level()
            server.route("POST", "/conversations/*") { request in
                arrived.add()
                await gate.wait(until: 1)
                return .json(request.bodyText, status: 201)
            }
            try await outbox.enqueue(PostMessage(conversation: 1, text: "slow"))
            #expect(await arrived.wait(until: 1, within: .seconds(60)))
            let returned = Level()
            let flushing = Task {
                await outbox.flush()
                returned.add()
            }
            flushing.cancel()
            #expect(await returned.wait(until: 1, within: .seconds(30)), "the cancelled flush still waits for the server")
            #expect(try await outbox.items().count == 1)
            gate.open()
            await outbox.flush()
            #expect(texts(server) == ["slow"])
            #expect(try await outbox.items().isEmpty)
        }
    }

    @Test(arguments: Transport.allCases)
    func theClientsDefaultsOfTheDayAreAddedAndSecretsNeverKept(_ transport: Transport) async throws {
        try await withOutbox(transport, configure: { configuration in
            configuration.commonQuery = [QueryItem(name: "api_key", value: "key-of-the-app")]
            configuration.defaultHeaders[.init("X-App-Version")!] = "7"
        }) { server, outbox, _, folder in
            acceptMessages(on: server)
            try await outbox.enqueue(Signed())
            let onDisk = try folderBytes(folder)
            for secret in ["endpoint-secret", "cookie-secret", "token-of-alice", "key-of-the-app"] {
                #expect(onDisk.range(of: Data(secret.utf8)) == nil, "\(secret) is in the outbox's files")
            }
            await outbox.flush()
            let request = try #require(server.lastRequest)
            #expect(request.method == "PUT")
            #expect(request.queryValue("api_key") == "key-of-the-app")
            #expect(request.header("X-App-Version") == "7")
            #expect(request.header("X-Trace") == "t1")
            #expect(request.header("Authorization") == "Bearer token-of-alice")
            #expect(request.header("Cookie") == nil)
        }
    }

    @Test func aSecretInTheQueryOrAReadIsRefused() async throws {
        try await withOutbox(.asyncHTTPClient) { _, outbox, _, _ in
            do {
                try await outbox.enqueue(Tokened())
                Issue.record("a secret query item was kept")
            } catch let error as OutboxError {
                guard case .invalidRequest(let underlying) = error else { throw error }
                #expect(underlying.kind == .invalidRequest)
                #expect(!"\(underlying)".contains("secret-in-query"))
            } catch {
                Issue.record("unexpected \(error)")
            }
            do {
                try await outbox.enqueue(Read())
                Issue.record("a read was kept")
            } catch let error as OutboxError {
                guard case .notAWrite(let method) = error else { throw error }
                #expect(method == "GET")
            } catch {
                Issue.record("unexpected \(error)")
            }
            #expect(try await outbox.items().isEmpty)
        }
    }

    @Test(arguments: Transport.allCases)
    func aFullOutboxRefusesAndKeepsWhatItHas(_ transport: Transport) async throws {
        try await withOutbox(transport, limits: Outbox.Limits(maximumItems: 2, maximumBytes: 10_000)) { server, outbox, _, _ in
            try await server.goDown()
            try await outbox.enqueue(PostMessage(conversation: 1, text: "one"))
            try await outbox.enqueue(PostMessage(conversation: 1, text: "two"))
            await #expect {
                try await outbox.enqueue(PostMessage(conversation: 1, text: "three"))
            } throws: { error in
                if case .full(let limits) = error as? OutboxError { limits.maximumItems == 2 } else { false }
            }
            #expect(try await outbox.items().count == 2)
        }
        try await withOutbox(transport, limits: Outbox.Limits(maximumItems: 10, maximumBytes: 600)) { server, outbox, _, _ in
            try await server.goDown()
            try await outbox.enqueue(PostMessage(conversation: 1, text: String(repeating: "x", count: 200)))
            await #expect(throws: OutboxError.self) {
                try await outbox.enqueue(PostMessage(conversation: 1, text: String(repeating: "y", count: 300)))
            }
            #expect(try await outbox.items().count == 1)
        }
    }
}

/// Every byte of the files in `folder` and below, concatenated.
func folderBytes(_ folder: URL) throws -> Data {
    var all = Data()
    let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
    while let url = enumerator?.nextObject() as? URL {
        if let data = try? Data(contentsOf: url) { all.append(data) }
    }
    return all
}

struct Signed: Endpoint {
    typealias Response = Data
    var method: HTTPRequest.Method { .put }
    var path: EndpointPath { "/conversations/9/messages" }
    var body: RequestBody? { .json(["text": "hi"]) }
    var headers: HTTPFields { [.authorization: "Bearer endpoint-secret", .cookie: "session=cookie-secret", .init("X-Trace")!: "t1"] }
}

struct Tokened: Endpoint {
    typealias Response = Data
    var method: HTTPRequest.Method { .post }
    var path: EndpointPath { "/hooks" }
    var query: Parameters { ["access_token": "secret-in-query"] }
}

struct Read: Endpoint {
    typealias Response = Data
    var path: EndpointPath { "/feed" }
}
