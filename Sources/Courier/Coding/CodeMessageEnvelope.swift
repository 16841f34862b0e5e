import Foundation

/// `{ "code": 0, "msg": "ok", "data": … }`: success when `code` is 0.
public struct CodeMessageEnvelope<Payload: Decodable & Sendable>: ResponseEnvelope {
    /// The result code; 0 means success.
    public var code: Int
    /// The message (`msg`, or `message`).
    public var message: String?
    /// The payload, present on success.
    public var data: Payload?

    /// Codes that mean success.
    static var successCodes: Set<Int> { [0] }

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
