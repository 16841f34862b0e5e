/// The events of a stream endpoint, decoded as they arrive: an `AsyncSequence` that reconnects
/// after a cut connection, like a browser's `EventSource`.
///
/// Made by ``Client/events(for:reconnection:)``. It connects when first iterated and reads the body
/// on demand: each line and event is bounded (``EventStreamEndpoint/maximumEventSize``), and the
/// endpoint's timeout applies between bytes. When the connection is cut, times out or ends, it
/// waits (the server's last `retry` time, never less than ``EventStreamReconnection/minimumDelay``,
/// or a backoff; see ``EventStreamReconnection``) and sends the request again with `Last-Event-ID`
/// set to the last event id it received, so the server can resume after it. A connection that ends
/// without an event counts as a failed one. It stops:
/// - when the server answers `204 No Content` (the stream ends normally);
/// - with ``EventStreamReconnection/none``, when the one connection ends (normally) or fails;
/// - on an error status that is not retryable, an event that does not decode, or an event too large
///   (the stream fails with that ``CourierError``, with the server's message and the call's evidence);
/// - after too many failed connections in a row (``EventStreamReconnection/maximumFailures``);
/// - when the task that iterates it is cancelled (``CourierError/Kind/cancelled``).
public struct EventStream<E: EventStreamEndpoint>: AsyncSequence, Sendable {
    /// An event with its decoded value.
    public typealias Element = StreamedEvent<E.Event>
    /// Every failure is a ``CourierError``.
    public typealias Failure = CourierError

    let client: Client
    let endpoint: E
    let reconnection: EventStreamReconnection

    /// Creates the iterator; each iterator connects on its own.
    public func makeAsyncIterator() -> Iterator {
        Iterator(source: self)
    }

    /// Connects, reads events, and reconnects after a cut.
    public struct Iterator: AsyncIteratorProtocol {
        private let source: EventStream
        private var events: ResponseEvents<ResumedEventStreamEndpoint<E>>.Iterator?
        /// The last event id received, sent as `Last-Event-ID` on reconnecting.
        private var lastEventID: String?
        /// The reconnection time the server asked for last.
        private var serverDelay: Duration?
        /// Connections in a row that failed before an event arrived.
        private var failures = 0
        /// Whether the current connection has delivered an event.
        private var delivered = false
        private var connections = 0
        private var isFinished = false

        init(source: EventStream) {
            self.source = source
        }

        /// The next event, after reconnecting as often as needed; nil once the server answers 204.
        /// - Throws: ``CourierError``: see ``EventStream`` for when it stops.
        public mutating func next() async throws(CourierError) -> StreamedEvent<E.Event>? {
            while !isFinished {
                if Task.isCancelled { throw finish(CourierError(.cancelled, detail: "The event stream was cancelled")) }
                guard var current = events else {
                    try await connect()
                    continue
                }
                do {
                    let event = try await current.next()
                    lastEventID = current.lastEventID ?? lastEventID
                    serverDelay = current.reconnectionTime ?? serverDelay
                    if let event {
                        events = current
                        failures = 0
                        delivered = true
                        return event
                    }
                    // The server ended the body: connect again, as an event source does. A body that
                    // ended without an event is a failed connection: it backs off and counts.
                    events = nil
                    guard source.reconnection.reconnects else {
                        isFinished = true
                        return nil
                    }
                    if !delivered {
                        try noteFailure(CourierError(.connectionLost, detail: "The server ended the event stream without sending an event"))
                    }
                } catch {
                    lastEventID = current.lastEventID ?? lastEventID
                    serverDelay = current.reconnectionTime ?? serverDelay
                    events = nil
                    guard source.reconnection.reconnects, source.reconnection.isRetryable(error) else { throw finish(error) }
                    try noteFailure(error)
                }
            }
            return nil
        }

        /// Waits if this is a reconnection, then sends the request.
        private mutating func connect() async throws(CourierError) {
            if connections > 0 {
                let delay = source.reconnection.delay(afterFailures: Swift.max(failures, 1), serverAsked: serverDelay)
                do {
                    try await source.reconnection.clock.sleep(for: delay)
                } catch {
                    throw finish(CourierError(.cancelled, detail: "The event stream was cancelled while waiting to reconnect"))
                }
            }
            connections += 1
            do {
                let response = try await source.client.connectEvents(for: ResumedEventStreamEndpoint(base: source.endpoint, lastEventID: lastEventID))
                if response.head.status == .noContent {
                    isFinished = true
                    return
                }
                events = response.value.makeAsyncIterator()
                delivered = false
            } catch {
                guard source.reconnection.reconnects, source.reconnection.isRetryable(error) else { throw finish(error) }
                try noteFailure(error)
            }
        }

        /// Counts a failed connection; the last one allowed ends the stream with its error.
        private mutating func noteFailure(_ error: CourierError) throws(CourierError) {
            failures += 1
            if let maximum = source.reconnection.maximumFailures, failures >= maximum {
                var error = error
                error.detail += " (gave up after \(failures) failed connections in a row)"
                throw finish(error)
            }
        }

        private mutating func finish(_ error: CourierError) -> CourierError {
            isFinished = true
            events = nil
            return error
        }
    }
}

@available(*, unavailable)
extension EventStream.Iterator: Sendable {}
