import Courier
import CourierOutbox
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// A kept write is delivered only when the server answered that write: a redirect that would turn
/// it into a GET without its body, or carry it to another origin, parks it; one that delivers the
/// same write to the same origin (307, 308) is followed, and a 303 (the write was taken) counts.
@Suite(.timeLimit(.minutes(3))) struct OutboxRedirectTests {
    @Test(arguments: Transport.allCases, [301, 302])
    func aWriteMovedBy301Or302ParksNamingTheStatusAndLocation(_ transport: Transport, status: Int) async throws {
        try await withOutbox(transport) { server, outbox, _, _ in
            server.route("POST", "/conversations/1/messages", respond: .status(status, headers: [MockHeader("Location", "/moved/messages")]))
            server.route("GET", "/moved/messages") { _ in .json(#"{"text":"a list"}"#) }
            server.route("POST", "/moved/messages") { request in .json(request.bodyText, status: 201) }
            let changes = outbox.changes()
            for text in ["one", "two", "three"] {
                try await outbox.enqueue(PostMessage(conversation: 1, text: text), group: text)
            }
            await outbox.flush()
            let items = try await outbox.items()
            #expect(items.count == 3)
            #expect(items.allSatisfy { $0.state == .parked && $0.lastFailure?.reason == .refused })
            #expect(items.allSatisfy { $0.lastFailure?.status == status && $0.lastFailure?.kind == "redirect" })
            #expect(items.allSatisfy { $0.lastFailure?.detail.contains("/moved/messages") == true })
            #expect(server.recordedRequests.map(\.method) == ["POST", "POST", "POST"])
            let seen = await collect(changes, count: 9)
            #expect(seen.filter { $0.name == "parked" }.count == 3 && !seen.contains { $0.name == "sent" })
        }
    }

    @Test(arguments: Transport.allCases)
    func a303CountsTheWriteDelivered(_ transport: Transport) async throws {
        try await withOutbox(transport) { server, outbox, _, _ in
            server.route("POST", "/conversations/1/messages", respond: .status(303, headers: [MockHeader("Location", "/messages/7")]))
            server.route("GET", "/messages/7") { _ in .json(#"{"text":"stored"}"#) }
            try await outbox.enqueue(PostMessage(conversation: 1, text: "one"))
            await outbox.flush()
            #expect(try await outbox.items().isEmpty)
            #expect(server.recordedRequests.map(\.method) == ["POST", "GET"])
        }
    }

    /// The GET after the 303 fails, or no redirect is followed at all: the write was taken, so each
    /// is sent once, reported sent with the 303, and its group goes on.
    @Test(arguments: Transport.allCases, [false, true])
    func a303IsDeliveredWhateverTheGETAfterItGets(_ transport: Transport, followsRedirects: Bool) async throws {
        try await withOutbox(transport, configure: { $0.maximumRedirects = followsRedirects ? 10 : 0 }) { server, outbox, _, _ in
            server.route("POST", "/conversations/1/messages", respond: .status(303, headers: [MockHeader("Location", "/messages/7")]))
            server.route("GET", "/messages/7", respond: .status(500))
            let changes = outbox.changes()
            for text in ["one", "two", "three"] {
                try await outbox.enqueue(PostMessage(conversation: 1, text: text), group: "chat")
            }
            await outbox.flush()
            #expect(try await outbox.items().isEmpty)
            let posts = server.recordedRequests.filter { $0.method == "POST" }
            #expect(posts.map(\.bodyText) == [#"{"text":"one"}"#, #"{"text":"two"}"#, #"{"text":"three"}"#])
            #expect(server.recordedRequests.filter { $0.method == "GET" }.count == (followsRedirects ? 3 : 0))
            let seen = await collect(changes, count: 9)
            let sent = seen.compactMap { change -> Int? in
                if case .sent(_, let delivery) = change { return delivery.response.head.status.code }
                return nil
            }
            #expect(sent == [303, 303, 303])
        }
    }

    @Test(arguments: Transport.allCases, [307, 308])
    func aSameOriginTemporaryOrPermanentRedirectResendsTheSameWrite(_ transport: Transport, status: Int) async throws {
        try await withOutbox(transport) { server, outbox, _, _ in
            server.route("POST", "/conversations/1/messages", respond: .status(status, headers: [MockHeader("Location", "/v2/messages")]))
            server.route("POST", "/v2/messages") { request in .json(request.bodyText, status: 201) }
            let item = try await outbox.enqueue(PostMessage(conversation: 1, text: "one"))
            await outbox.flush()
            let left = try await outbox.items()
            #expect(left.isEmpty, "\(left.map { $0.lastFailure?.detail ?? "" })")
            let requests = server.recordedRequests
            #expect(requests.map(\.method) == ["POST", "POST"] && requests.map(\.path) == ["/conversations/1/messages", "/v2/messages"])
            #expect(requests.map(\.bodyText) == [#"{"text":"one"}"#, #"{"text":"one"}"#])
            #expect(requests.allSatisfy { $0.header("Idempotency-Key") == item.idempotencyKey && item.idempotencyKey != nil })
            #expect(requests.allSatisfy { $0.header("Authorization") == "Bearer token-of-alice" })
        }
    }

    @Test(arguments: Transport.allCases, [307, 308])
    func aRedirectToAnotherOriginIsNeverFollowed(_ transport: Transport, status: Int) async throws {
        try await withServer { other in
            other.route("POST", "/inbox") { request in .json(request.bodyText, status: 201) }
            try await withOutbox(transport) { server, outbox, _, _ in
                server.route("POST", "/conversations/1/messages", respond: .status(status, headers: [MockHeader("Location", other.url("/inbox").absoluteString)]))
                try await outbox.enqueue(PostMessage(conversation: 1, text: "one"))
                await outbox.flush()
                let items = try await outbox.items()
                #expect(items.map(\.state) == [.parked] && items.first?.lastFailure?.status == status)
                #expect(items.first?.lastFailure?.detail.contains(other.url("/inbox").absoluteString) == true)
                #expect(other.recordedRequests.isEmpty)
            }
        }
    }

    @Test(arguments: Transport.allCases)
    func aPlainCallKeepsTheClientsRule(_ transport: Transport) async throws {
        // RFC 9110 §15.4.2-3 allow a user agent to follow a 301 or 302 after a POST with a GET;
        // a plain call does, as browsers do. Only a kept write refuses.
        try await withOutbox(transport) { server, _, _, _ in
            server.route("POST", "/conversations/1/messages", respond: .status(302, headers: [MockHeader("Location", "/moved")]))
            server.route("GET", "/moved") { _ in .json(#"{"text":"a list"}"#) }
            let client = Client(baseURL: server.baseURL, transport: transport.make())
            let posted = try await client.send(PostMessage(conversation: 1, text: "one"))
            #expect(posted.text == "a list")
            #expect(server.recordedRequests.map(\.method) == ["POST", "GET"])
        }
    }
}
