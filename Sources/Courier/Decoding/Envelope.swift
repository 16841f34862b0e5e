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

/// An error reported inside an envelope: its message and code.
public struct EnvelopeFailure: Error, Sendable, Hashable {
    /// The server's message, if any.
    public var message: String?
    /// The server's code, if any, as text.
    public var code: String?

    /// Creates a failure.
    public init(message: String?, code: String? = nil) {
        self.message = message
        self.code = code
    }
}

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

/// `{ "code": 0, "msg": "ok", "data": … }`: success when `code` is 0 (or in ``successCodes``).
public struct CodeMessageEnvelope<Payload: Decodable & Sendable>: ResponseEnvelope {
    /// The result code; 0 means success.
    public var code: Int
    /// The message (`msg`, or `message`).
    public var message: String?
    /// The payload, present on success.
    public var data: Payload?

    /// Codes that mean success.
    public static var successCodes: Set<Int> { [0] }

    enum CodingKeys: String, CodingKey { case code, msg, message, data }

    /// Decodes `code`, `msg`/`message` and `data`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code = try container.decode(Int.self, forKey: .code)
        message = try container.decodeIfPresent(String.self, forKey: .msg)
            ?? container.decodeIfPresent(String.self, forKey: .message)
        // The payload is only required when the envelope says success.
        data = Self.successCodes.contains(code) ? try container.decode(Payload.self, forKey: .data) : nil
    }

    /// The payload when `code` means success, otherwise the message and code.
    public func payload() -> Result<Payload, EnvelopeFailure> {
        if Self.successCodes.contains(code), let data { return .success(data) }
        return .failure(EnvelopeFailure(message: message, code: String(code)))
    }
}

/// `{ "status": "ok", "data": … }` or `{ "status": "error", "message": … }`.
public struct StatusMessageEnvelope<Payload: Decodable & Sendable>: ResponseEnvelope {
    /// The status word; `ok` or `success` mean success.
    public var status: String
    /// The message, if any.
    public var message: String?
    /// The payload, present on success.
    public var data: Payload?

    enum CodingKeys: String, CodingKey { case status, message, data }

    /// Decodes `status`, `message` and `data`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        status = try container.decode(String.self, forKey: .status)
        message = try container.decodeIfPresent(String.self, forKey: .message)
        data = Self.isSuccess(status) ? try container.decode(Payload.self, forKey: .data) : nil
    }

    static func isSuccess(_ status: String) -> Bool {
        ["ok", "success"].contains(status.lowercased())
    }

    /// The payload when `status` is `ok`/`success`, otherwise the message.
    public func payload() -> Result<Payload, EnvelopeFailure> {
        if Self.isSuccess(status), let data { return .success(data) }
        return .failure(EnvelopeFailure(message: message, code: status))
    }
}
