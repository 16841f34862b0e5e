import Foundation

/// A response wrapper that carries the payload and a success flag, like `{code, msg, data}`.
///
/// Endpoints adopt ``EnvelopedEndpoint`` to decode through an envelope: the client decodes the
/// envelope, returns ``payload()`` on success, and turns a failure into a ``CourierError`` of kind
/// ``CourierError/Kind/envelope`` carrying the server's message, even inside a 200 response.
public protocol ResponseEnvelope: Decodable, Sendable {
    /// The model inside the envelope.
    associatedtype Payload: Sendable
    /// The payload on success, or the failure the envelope reports.
    func payload() -> Result<Payload, EnvelopeFailure>
}
