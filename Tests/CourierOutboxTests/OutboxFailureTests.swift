import Courier
import CourierOutbox
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// Passing failures back off on the outbox's clock and honour `Retry-After`; a refusal parks its
/// item and holds back its group alone.
@Suite(.timeLimit(.minutes(3))) struct OutboxFailureTests {
    @Test(arguments: Transport.allCases)
    func passingFailuresBackOffAndHonourRetryAfter(_ transport: Transport) async throws {
        try await withOutbox(transport) { server, outbox, clock, _ in
            server.route("POST", "/conversations/1/messages", script: [
                .status(503), .status(500), .retryAfter(seconds: 30, status: 429), .json(#"{"text":"one"}"#, status: 201),
            ])
            let changes = outbox.changes()
            let item = try await outbox.enqueue(PostMessage(conversation: 1, text: "one"))
            // 1 s after the first failure (jitter at its longest), 2 s after the second, and the
            // server's 30 s (longer than the 4 s backoff) after the third.
            for (sleepers, wait) in [(1, 1), (2, 2), (3, 30)] {
                await clock.waitForSleepers(count: 1)
                #expect(clock.sleeps.count == sleepers)
                #expect(clock.sleeps.last == .seconds(wait))
                #expect(server.recordedRequests.count == sleepers)
                clock.advance(by: .seconds(wait) - .milliseconds(1))
                #expect(server.recordedRequests.count == sleepers)
                clock.advance(by: .milliseconds(1))
                if sleepers < 3 { #expect(await eventually { server.recordedRequests.count == sleepers + 1 }) }
            }
            #expect(try await eventually { try await outbox.items().isEmpty })
            #expect(server.recordedRequests.count == 4)
            #expect(Set(server.recordedRequests.compactMap { $0.header("Idempotency-Key") }).count == 1)
            let seen = await collect(changes, count: 9)
            #expect(seen.map(\.name) == [
                "enqueued", "sending", "willRetry", "sending", "willRetry", "sending", "willRetry", "sending", "sent",
            ])
            guard case .willRetry(let waiting, let error, let retryAfter) = seen[6] else { Issue.record("no retry"); return }
            #expect(waiting.id == item.id && waiting.sends == 3 && waiting.lastFailure?.status == 429)
            #expect(error.status?.code == 429 && retryAfter == .seconds(30))
        }
    }

    @Test(arguments: Transport.allCases)
    func noConnectionWaitsAndSendsWhenTheServerIsBack(_ transport: Transport) async throws {
        try await withOutbox(transport) { server, outbox, clock, _ in
            acceptMessages(on: server)
            try await server.goDown()
            try await outbox.enqueue(PostMessage(conversation: 1, text: "offline"))
            await clock.waitForSleepers(count: 1)
            let items = try await outbox.items()
            #expect(items.count == 1 && items[0].sends == 1 && items[0].lastFailure?.kind == "noConnection")
            try await server.comeUp()
            await outbox.flush()
            #expect(texts(server) == ["offline"])
            #expect(try await outbox.items().isEmpty)
        }
    }

    @Test(arguments: Transport.allCases)
    func aRefusedWriteParksAndHoldsBackItsGroupOnly(_ transport: Transport) async throws {
        try await withOutbox(transport) { server, outbox, clock, _ in
            let refuse = Locked(true)
            server.route("POST", "/conversations/*") { request in
                if refuse.current, request.bodyText.contains("bad") { return .json(#"{"message":"Too long"}"#, status: 422) }
                return .json(request.bodyText, status: 201)
            }
            let bad = try await outbox.enqueue(PostMessage(conversation: 1, text: "bad"), group: "1")
            try await outbox.enqueue(PostMessage(conversation: 1, text: "after bad"), group: "1")
            try await outbox.enqueue(PostMessage(conversation: 2, text: "other group"), group: "2")
            await outbox.flush()
            #expect(texts(server) == ["bad", "other group"] || texts(server) == ["other group", "bad"])
            let parked = try await outbox.items()
            #expect(parked.map(\.state) == [.parked, .waiting])
            #expect(parked[0].lastFailure?.status == 422 && parked[0].lastFailure?.serverMessage == "Too long")
            #expect(clock.sleeps.isEmpty)

            refuse.withLock { $0 = false }
            try await outbox.retry(bad.id)
            await outbox.flush()
            #expect(texts(server).suffix(2) == ["bad", "after bad"])
            #expect(try await outbox.items().isEmpty)
        }
    }

    @Test(arguments: Transport.allCases)
    func aDiscardedItemIsGoneAndItsGroupGoesOn(_ transport: Transport) async throws {
        try await withOutbox(transport) { server, outbox, _, folder in
            server.route("POST", "/conversations/*") { request in
                request.bodyText.contains("bad") ? .status(400) : .json(request.bodyText, status: 201)
            }
            let file = folder.deletingLastPathComponent().appendingPathComponent("upload-\(UUID().uuidString)")
            try Data(repeating: 7, count: 100_000).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let bad = try await outbox.enqueue(PostMessage(conversation: 1, text: "bad"))
            try await outbox.enqueue(Upload(file: file))
            try FileManager.default.removeItem(at: file)
            await outbox.flush()
            let bodies = folder.appendingPathComponent("bodies")
            let kept = try FileManager.default.contentsOfDirectory(atPath: bodies.path)
            #expect(kept.count == 1)
            let attributes = try FileManager.default.attributesOfItem(atPath: bodies.appendingPathComponent(kept[0]).path)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)

            let changes = outbox.changes()
            try await outbox.discard(bad.id)
            await outbox.flush()
            #expect(server.recordedRequests.last?.bodyLength == 100_000)
            #expect(try FileManager.default.contentsOfDirectory(atPath: bodies.path).isEmpty)
            #expect(await collect(changes, count: 1).map(\.name) == ["discarded"])
            await #expect(throws: OutboxError.self) { try await outbox.discard(bad.id) }
        }
    }
}

struct Upload: Endpoint {
    typealias Response = Data
    let file: URL
    var method: HTTPRequest.Method { .post }
    var path: EndpointPath { "/conversations/1/messages" }
    var body: RequestBody? { .file(file, contentType: "application/octet-stream") }
}
