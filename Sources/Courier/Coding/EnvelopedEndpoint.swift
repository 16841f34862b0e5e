import Foundation

/// An endpoint whose responses come wrapped in an envelope.
public protocol EnvelopedEndpoint: Endpoint where Response == Envelope.Payload {
    /// The envelope type, e.g. `CodeMessageEnvelope<User>`.
    associatedtype Envelope: ResponseEnvelope
    /// The payload type; inferred from ``Envelope``.
    associatedtype Response = Envelope.Payload
}

extension EnvelopedEndpoint {
    /// Decodes the envelope and unwraps its payload, or throws its failure.
    public func decode(_ body: Data, context: DecodingContext) throws -> Response {
        try context.decode(Envelope.self, from: body).payload().get()
    }
}
