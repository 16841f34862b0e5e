import Courier
import HTTPTypes

/// The account a phone number was bound to.
public struct BoundAccount: Codable, Sendable, Hashable {
    /// The account id.
    public var accountId: String
    /// The bound phone number.
    public var phone: String

    /// Creates an account.
    public init(accountId: String, phone: String) {
        self.accountId = accountId
        self.phone = phone
    }
}

/// `POST /bind`: binds a phone number to the account; answers `{code, msg, data}` even for errors.
///
/// With ``EnvelopedEndpoint`` the call returns `BoundAccount` on `code == 0` and throws a
/// ``CourierError`` of kind `envelope` with the server's `msg` otherwise, even inside a 200.
public struct BindUser: EnvelopedEndpoint {
    /// The envelope the response comes wrapped in.
    public typealias Envelope = CodeMessageEnvelope<BoundAccount>
    /// The phone number to bind.
    public var phone: String
    /// The confirmation code received by SMS.
    public var code: String

    /// Creates the request.
    public init(phone: String, code: String) {
        self.phone = phone
        self.code = code
    }

    /// The HTTP method of this action.
    public var method: HTTPRequest.Method { .post }
    /// The path, with interpolated values escaped.
    public var path: EndpointPath { "/bind" }
    /// The parameters, placed by method.
    public var parameters: Parameters { ["phone": phone, "code": code] }
}
