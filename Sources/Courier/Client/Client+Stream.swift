import Foundation
import OpenAPIRuntime

extension Client {
    /// Sends an endpoint and hands its response body over as it arrives, chunk by chunk: for
    /// newline-delimited JSON, server-sent events or any body to process before it is whole.
    ///
    /// The call goes through the middleware chain like ``send(_:cachePolicy:)``, without the cache;
    /// an error status still fails here, with the server's message. The body can be read once; the
    /// endpoint's timeout is an idle timeout (no bytes for that long), not a bound on the whole. On
    /// both transports the chunks come as the server sends them, and a reader slower than the network
    /// costs a few MB of memory, not the body.
    ///
    /// ```swift
    /// let feed = try await client.bytes(for: LiveScores())
    /// for try await chunk in feed.value { parser.consume(chunk) }
    /// ```
    /// - Throws: ``CourierError`` for the call; reading the body throws ``CourierError`` too.
    public func bytes<E: Endpoint>(for endpoint: E) async throws(CourierError) -> Response<HTTPBody> {
        var call = EndpointCall(endpoint, cachePolicy: .withoutCache, otherwise: .withoutCache)
        call.destination = .caller
        call = try await run(call)
        let body = call.stream ?? HTTPBody()
        return response(body, of: call, bodySize: Int(body.knownLength ?? 0))
    }
}
