import Courier
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

/// A publisher of the elements of an asynchronous sequence that a closure makes for each
/// subscriber: an outbox's changes (`SequencePublisher { outbox.changes() }`), a walk of pages.
///
/// The sequence is made when the first demand arrives and read only as fast as the subscriber
/// asks; cancelling the subscription cancels the read. A sequence's error reaches the subscriber as
/// a `CourierError` (itself, or wrapped as a transport failure).
public struct SequencePublisher<Element: Sendable>: Publisher, Sendable {
    /// The sequence's elements.
    public typealias Output = Element
    /// A failure of the sequence, as a `CourierError`.
    public typealias Failure = CourierError

    private let makeStream: @Sendable () -> AsyncThrowingStream<Element, any Error>

    /// A publisher over the sequences `make` returns, one per subscriber.
    public init<S: AsyncSequence & Sendable>(_ make: @escaping @Sendable () -> S) where S.Element == Element {
        makeStream = {
            let elements = PulledElements(make())
            return AsyncThrowingStream { try await elements.next() }
        }
    }

    /// Attaches a subscriber; nothing is read before it asks for elements.
    public func receive<Sub: Subscriber>(subscriber: Sub) where Sub.Input == Output, Sub.Failure == Failure {
        subscriber.receive(subscription: UpdatesSubscription(subscriber: subscriber, makeStream: makeStream))
    }
}

/// A sequence's elements, one read per `next()`: the stream built on it reads nothing ahead (an
/// event stream's next event waits in its connection until the subscriber asks).
// @unchecked: the iterator is used by one stream's `next`, whose calls never overlap.
final class PulledElements<S: AsyncSequence>: @unchecked Sendable where S.Element: Sendable {
    private var iterator: S.AsyncIterator

    init(_ sequence: S) {
        iterator = sequence.makeAsyncIterator()
    }

    func next() async throws -> S.Element? {
        try await iterator.next()
    }
}
