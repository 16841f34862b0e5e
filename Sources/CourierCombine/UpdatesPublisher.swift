import Courier
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

extension Client {
    /// A publisher of an endpoint's values: next for each value (two for cache-then-network
    /// policies), then finished, or a `CourierError`.
    ///
    /// The request starts when the first demand arrives; cancelling the subscription cancels it.
    /// Uses Combine on Apple platforms and OpenCombine elsewhere.
    public func publisher<E: Endpoint>(
        for endpoint: E,
        cachePolicy: CachePolicy? = nil,
        skipUnchanged: Bool = false
    ) -> UpdatesPublisher<E.Response> {
        UpdatesPublisher { self.updates(for: endpoint, cachePolicy: cachePolicy, skipUnchanged: skipUnchanged) }
    }
}

/// The publisher returned by ``Courier/Client/publisher(for:cachePolicy:skipUnchanged:)``.
public struct UpdatesPublisher<Value: Sendable>: Publisher, Sendable {
    /// Each value with its response evidence.
    public typealias Output = Response<Value>
    /// Every failure is a `CourierError`.
    public typealias Failure = CourierError

    let makeStream: @Sendable () -> AsyncThrowingStream<Response<Value>, any Error>

    /// Attaches a subscriber; nothing is sent before it asks for values.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let subscription = UpdatesSubscription(subscriber: subscriber, makeStream: makeStream)
        subscriber.receive(subscription: subscription)
    }
}
