import Courier
import CourierOutbox
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// `stop()` gives the folder up only once nothing of the outbox uses it, and nothing restarts
/// sending underneath it: a write whose answer came just before it is removed, not sent again, and
/// an `enqueue`, `resume` or `flush` called during it waits for it, then takes the folder back.
@Suite(.timeLimit(.minutes(3))) struct OutboxStopTests {
    @Test(arguments: Transport.allCases)
    func aStopAsAnAnswerArrivesRemovesTheItemAndCallsDuringItWait(_ transport: Transport) async throws {
        try await withServer { server in
            try await withFolder { folder in
                acceptMessages(on: server)
                let client = signedInClient(server, transport)
                let answered = AsyncStream<Void>.makeStream(), stopBegan = AsyncStream<Void>.makeStream()
                let removals = Locked(0)
                let outbox = try Outbox(client: client, folder: folder, clock: ManualClock(), random: { 1 }, beforeRemoval: { _ in
                    guard removals.withLock({ removals in
                        removals += 1
                        return removals == 1
                    }) else { return }
                    // The first write's answer is known: held here until the stop cancels its lane…
                    answered.continuation.yield()
                    try? await Task.sleep(for: .seconds(30))
                    stopBegan.continuation.yield()
                    // …and a moment longer (not cancellable), so the calls below reach the outbox
                    // while the stop waits for this lane.
                    await Task.detached { try? await Task.sleep(for: .milliseconds(300)) }.value
                })
                let changes = outbox.changes()
                try await outbox.enqueue(PostMessage(conversation: 1, text: "first"))
                var answers = answered.stream.makeAsyncIterator()
                _ = await answers.next()
                let stopping = Task { await outbox.stop() }
                var stops = stopBegan.stream.makeAsyncIterator()
                _ = await stops.next()
                async let enqueued = outbox.enqueue(PostMessage(conversation: 1, text: "second"))
                async let resumed: Void = outbox.resume()
                async let flushed: Void = outbox.flush()
                await stopping.value
                _ = try await enqueued
                _ = await (resumed, flushed)

                // The calls made during the stop waited for it, then took the folder back.
                #expect {
                    _ = try Outbox(client: client, folder: folder)
                } throws: { error in
                    if case OutboxError.folderInUse = error { true } else { false }
                }
                #expect(try await eventually { try await outbox.items().isEmpty })
                #expect(texts(server) == ["first", "second"], "the first write, answered before the stop, was not sent again")
                // The stop ended the subscription: what came before it, and no storage failure.
                #expect(await collect(changes, count: 10).map(\.name) == ["enqueued", "sending", "sent"])
                await outbox.stop()
            }
        }
    }
}
