import Courier
import CourierExamples
import CourierOutbox
import CourierTesting
import Foundation
import HTTPTypes

extension Tour {
    /// Step 14: the API goes away, three messages wait in an outbox on disk; the API comes back and
    /// they arrive in order, each once.
    func offlineWrites(_ client: Client, in workDir: URL) async throws {
        Narrator.step(14, "Offline writes: the API goes away, three messages wait in the outbox, then arrive in order, once")
        guard let api else {
            Narrator.say("(skipped: the tour runs against an external server)")
            return
        }
        struct SendMessage: Endpoint {
            typealias Response = Message
            let text: String
            var method: HTTPRequest.Method { .post }
            var path: EndpointPath { "/messages" }
            var body: RequestBody? { .json(Message(text: text)) }
        }
        struct Messages: Endpoint {
            typealias Response = [Message]
            var path: EndpointPath { "/messages" }
        }
        let outbox = try Outbox(
            client: client, folder: workDir.appendingPathComponent("outbox"),
            backoff: Outbox.Backoff(initialDelay: .milliseconds(200), maximumDelay: .seconds(1)))
        try await api.server.goDown()
        let changes = outbox.changes()
        for text in ["On the train", "Tunnel, back soon", "Arriving at 6"] {
            try await outbox.enqueue(SendMessage(text: text), group: "conversation-1")
        }
        // The client's own retries give up first; then the outbox waits and tries again later.
        for await change in changes {
            guard case .willRetry(_, let error, let wait) = change else { continue }
            Narrator.say("… \(error.kind), the outbox tries again in \(wait.formatted(.units(allowed: [.milliseconds])))")
            break
        }
        for item in try await outbox.items() {
            let failure = item.lastFailure.map { ", last: \($0.kind)" } ?? ""
            Narrator.say("… item \(item.id) \(item.method) \(item.path) \(item.state), \(item.sends) sends\(failure)")
        }
        try await api.server.comeUp()
        await outbox.flush()
        let posts = api.server.recordedRequests.filter { $0.method == "POST" && $0.path == "/messages" }
        let keys = Set(posts.compactMap { $0.header("Idempotency-Key") })
        let messages = try await client.send(Messages(), cachePolicy: .withoutCache).map(\.text)
        Narrator.say("✓ the API applied \(messages.count) messages in order: \(messages.joined(separator: " · "))")
        Narrator.say("✓ \(posts.count) requests reached it with \(keys.count) Idempotency-Keys; \(try await outbox.items().count) items left")
        await outbox.stop()
    }
}
