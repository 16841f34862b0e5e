import Courier
import CourierCombine
import CourierExamples
import CourierTestSupport
import CourierTesting
import Foundation
import Testing
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

/// The Combine face of event streams, over the sample API's live score (cut after three goals,
/// resumed with `Last-Event-ID`, ended by a `204`).
@Suite struct EventPublisherTests {
    /// A subscriber that asks for `initial` events, then for what the test asks.
    final class Collector: Subscriber, Sendable {
        typealias Input = StreamedEvent<SampleScore>
        typealias Failure = CourierError

        let initial: Int
        let events = Locked<[Input]>([])
        let count = Level()
        let completion = Locked<Subscribers.Completion<CourierError>?>(nil)
        let ended = Level()
        private let subscription = Locked<(any Subscription)?>(nil)

        init(initial: Int) { self.initial = initial }

        func receive(subscription: any Subscription) {
            self.subscription.withLock { $0 = subscription }
            subscription.request(.max(initial))
        }

        func receive(_ input: Input) -> Subscribers.Demand {
            count.raise(to: events.withLock { events in
                events.append(input)
                return events.count
            })
            return .none
        }

        func receive(completion: Subscribers.Completion<CourierError>) {
            self.completion.withLock { $0 = completion }
            ended.open()
        }

        func request(_ demand: Subscribers.Demand) { subscription.withLock { $0 }?.request(demand) }
        func cancel() { subscription.withLock { $0 }?.cancel() }
    }

    static func connections(_ api: SampleSocialAPI) -> [String?] {
        api.server.recordedRequests.filter { $0.path == "/live/scores" }.map { $0.header("Last-Event-ID") }
    }

    @Test(arguments: TransportKind.allCases)
    func aSubscriberThatWantsTwoEventsHoldsTheStreamBack(kind: TransportKind) async throws {
        let api = try await SampleSocialAPI.start()
        defer { Task { try? await api.shutdown() } }
        let client = Client(baseURL: api.baseURL, transport: kind.make())
        let collector = Collector(initial: 2)
        client.eventPublisher(for: ExamplesEndToEndTests.LiveScores()).receive(subscriber: collector)
        #expect(await collector.count.wait(until: 2, within: .seconds(60)))
        // Read ahead, the third event and the cut would come next, and a reconnection 200 ms later.
        try await Task.sleep(for: .seconds(1))
        #expect(collector.count.current == 2)
        #expect(Self.connections(api) == [nil])

        collector.request(.unlimited)
        #expect(await collector.ended.wait(within: .seconds(60)))
        #expect(collector.events.withLock { $0.map(\.value.minute) } == [12, 27, 45, 61, 78, 90])
        #expect(collector.events.withLock { $0.map(\.id) } == ["1", "2", "3", "4", "5", "6"])
        if case .failure(let error) = collector.completion.withLock({ $0 }) { Issue.record("failed: \(error)") }
        #expect(Self.connections(api) == [nil, "3", "6"])
    }

    @Test(arguments: TransportKind.allCases)
    func cancellingStopsTheStream(kind: TransportKind) async throws {
        let api = try await SampleSocialAPI.start()
        defer { Task { try? await api.shutdown() } }
        let client = Client(baseURL: api.baseURL, transport: kind.make())
        let collector = Collector(initial: 1)
        client.eventPublisher(for: ExamplesEndToEndTests.LiveScores()).receive(subscriber: collector)
        #expect(await collector.count.wait(until: 1, within: .seconds(60)))
        collector.cancel()
        collector.request(.unlimited)
        try await Task.sleep(for: .milliseconds(500))
        #expect(collector.count.current == 1)
        #expect(collector.completion.withLock { $0 } == nil, "a cancelled subscription completes nothing")
        #expect(Self.connections(api) == [nil])
    }
}
