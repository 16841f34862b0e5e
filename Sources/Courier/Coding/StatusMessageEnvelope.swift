import Foundation

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
