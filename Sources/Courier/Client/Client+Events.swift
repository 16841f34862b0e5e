import Foundation
import OpenAPIRuntime

extension Client {
    /// The events of a stream endpoint as they arrive, reconnecting after a cut connection and
    /// resuming with `Last-Event-ID`, until the server answers 204, an error can't be retried, or the
    /// task is cancelled (see ``EventStream``). Server-sent events and JSON Lines alike.
    ///
    /// Each connection goes through the middleware chain like ``bytes(for:)``, without the cache; an
    /// error status fails the stream with the server's message.
    ///
    /// ```swift
    /// for try await event in client.events(for: LiveScores(match: 7)) {
    ///     show(event.value)
    /// }
    /// // One connection, no reconnecting: the stream ends with the body.
    /// for try await line in client.events(for: ExportLines(), reconnection: .none) { store(line.value) }
    /// ```
    /// - Parameters:
    ///   - endpoint: The event stream endpoint, sent again on each reconnection with `Last-Event-ID`.
    ///   - reconnection: When to reconnect and when to give up; ``EventStreamReconnection/none`` for one connection.
    /// - Returns: The events, not yet connected.
    public func events<E: EventStreamEndpoint>(
        for endpoint: E, reconnection: EventStreamReconnection = EventStreamReconnection()
    ) -> EventStream<E> {
        EventStream(client: self, endpoint: endpoint, reconnection: reconnection)
    }

    /// One connection of an ``EventStream``: sends the endpoint and returns its events, unread.
    func connectEvents<E: EventStreamEndpoint>(for endpoint: E) async throws(CourierError) -> Response<ResponseEvents<E>> {
        let response = try await bytes(for: endpoint)
        let limit = endpoint.maximumEventSize ?? configuration.maximumBodySize
        let name = endpoint.operationName
        let request = response.request
        let head = response.head
        let redaction = configuration.redaction
        let stream = ResponseEvents(
            endpoint: endpoint, body: response.value, context: DecodingContext(decoder: configuration.decoder, response: head),
            limit: limit,
            evidence: { error in
                var error = error
                error.status = error.status ?? head.status
                error.responseHeaders = error.responseHeaders ?? head.headerFields
                return error.filling(endpoint: name, request: request, redaction: redaction)
            }
        )
        return response.map { _ in stream }
    }
}
