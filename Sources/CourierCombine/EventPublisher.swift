import Courier
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

extension Client {
    /// A publisher of an event stream's events, as `Client.events(for:reconnection:)`
    /// reads them: reconnecting with `Last-Event-ID`, finished by a `204`, failed with a
    /// `CourierError`.
    ///
    /// The connection opens when the first demand arrives, and the stream is read only as fast as
    /// the subscriber asks: a subscriber that wants two events gets two, and the server's next ones
    /// wait in the connection. Cancelling the subscription closes it.
    public func eventPublisher<E: EventStreamEndpoint>(
        for endpoint: E, reconnection: EventStreamReconnection = EventStreamReconnection()
    ) -> EventPublisher<E> {
        EventPublisher(source: events(for: endpoint, reconnection: reconnection))
    }
}

/// The publisher returned by ``Courier/Client/eventPublisher(for:reconnection:)``.
public struct EventPublisher<E: EventStreamEndpoint>: Publisher, Sendable {
    /// Each event with its decoded value.
    public typealias Output = StreamedEvent<E.Event>
    /// Every failure is a `CourierError`.
    public typealias Failure = CourierError

    let source: EventStream<E>

    /// Attaches a subscriber; nothing is read before it asks for events.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let subscription = UpdatesSubscription(subscriber: subscriber) { [source] in
            let events = PulledElements(source)
            return AsyncThrowingStream { try await events.next() }
        }
        subscriber.receive(subscription: subscription)
    }
}
