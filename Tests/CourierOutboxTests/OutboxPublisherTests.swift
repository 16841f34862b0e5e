import Courier
import CourierCombine
import CourierOutbox
import CourierTestSupport
import CourierTesting
import Foundation
import Testing
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

/// An outbox's changes as a Combine publisher (`CourierCombine`'s `SequencePublisher`).
@Suite(.timeLimit(.minutes(3))) struct OutboxPublisherTests {
    @Test(arguments: Transport.allCases)
    func aSubscriberSeesEachChangeThenTheEndWhenTheOutboxStops(_ transport: Transport) async throws {
        try await withOutbox(transport) { server, outbox, _, _ in
            acceptMessages(on: server)
            let names = Locked<[String]>([])
            let received = Level()
            let finished = Level()
            let subscription = SequencePublisher { outbox.changes() }.sink(
                receiveCompletion: { completion in
                    if case .finished = completion { finished.add() }
                },
                receiveValue: { change in
                    received.raise(to: names.withLock { names in
                        names.append(change.name)
                        return names.count
                    })
                })
            // `sink` asks for every value at once, which makes the sequence: it listens from here on.
            try await outbox.enqueue(PostMessage(conversation: 1, text: "published"))
            await outbox.flush()
            #expect(await received.wait(until: 3, within: .seconds(30)))
            #expect(names.current == ["enqueued", "sending", "sent"])
            await outbox.stop()
            #expect(await finished.wait(until: 1, within: .seconds(30)))
            subscription.cancel()
        }
    }
}
