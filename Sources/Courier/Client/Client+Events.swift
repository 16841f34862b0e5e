import Foundation
import OpenAPIRuntime

extension Client {
    /// Sends an endpoint whose response is a stream of events and returns the events as they
    /// arrive, decoded one by one.
    ///
    /// The call goes through the middleware chain like ``bytes(for:)``, without the cache; an error
    /// status fails here, with the server's message. The stream reads the body on demand and can be
    /// iterated once; see ``EventStream`` for its bounds and errors.
    ///
    /// ```swift
    /// let scores = try await client.events(for: LiveScores())
    /// for try await event in scores.value { show(event.value) }
    /// ```
    /// - Throws: ``CourierError`` for the call; reading the stream throws ``CourierError`` too.
    public func events<E: EventStreamEndpoint>(for endpoint: E) async throws(CourierError) -> Response<EventStream<E>> {
        let response = try await bytes(for: endpoint)
        let limit = endpoint.maximumEventSize ?? configuration.maximumBodySize
        let name = endpoint.operationName
        let request = response.request
        let head = response.head
        let redaction = configuration.redaction
        let stream = EventStream(
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
