import Courier
import Dispatch

extension Client {
    /// Reads a stream's events (see `events(for:reconnection:)`) and hands each
    /// event to `onEvent` on `queue`, then calls `completion` once there.
    ///
    /// The next event is read only once `onEvent` has returned for the one before, so a slow handler
    /// slows the stream instead of queueing events in memory. `completion` gets success when the server
    /// answers 204, or the error that ended the stream; after ``CallHandle/cancel()`` no event is handed
    /// over and `completion` gets `CourierError.Kind.cancelled` at once.
    /// - Returns: A handle that stops the stream.
    @discardableResult
    public func events<E: EventStreamEndpoint>(
        for endpoint: E,
        reconnection: EventStreamReconnection = EventStreamReconnection(),
        queue: DispatchQueue = Client.defaultCompletionQueue,
        onEvent: @escaping @Sendable (StreamedEvent<E.Event>) -> Void,
        completion: @escaping @Sendable (Result<Void, CourierError>) -> Void
    ) -> CallHandle {
        let source = events(for: endpoint, reconnection: reconnection)
        let cancelled = "The event stream was cancelled"
        return deliver(endpoint.operationName, on: queue, to: completion, cancelledDetail: cancelled) { handle throws(CourierError) in
            for try await event in source {
                await withCheckedContinuation { (delivered: CheckedContinuation<Void, Never>) in
                    queue.async {
                        if !handle.isFinished { onEvent(event) }
                        delivered.resume()
                    }
                }
            }
        }
    }
}
