import HTTPTypes

/// What authenticates a user: the header fields added to each request and a stable identity.
///
/// The identity (a user id, never the token) partitions the cache, so one user's responses are
/// never served to another and signing out can clear exactly that user's data.
public struct Credentials: Sendable, Hashable {
    /// The header fields added to every authenticated request.
    public var headers: HTTPFields
    /// A stable identifier of the user, e.g. the user id.
    public var identity: String
    /// A token that can obtain new credentials, if the backend issues one.
    public var refreshToken: String?

    /// Creates credentials from header fields.
    public init(headers: HTTPFields, identity: String, refreshToken: String? = nil) {
        self.headers = headers
        self.identity = identity
        self.refreshToken = refreshToken
    }

    /// `Authorization: Bearer <token>`.
    public static func bearer(_ token: String, identity: String, refreshToken: String? = nil) -> Credentials {
        Credentials(headers: [.authorization: "Bearer \(token)"], identity: identity, refreshToken: refreshToken)
    }

    /// `X-Auth-Token` and `X-User-Id`, as RocketChat-style APIs expect.
    public static func authToken(_ token: String, userID: String) -> Credentials {
        var fields = HTTPFields()
        fields[.xAuthToken] = token
        fields[.xUserID] = userID
        return Credentials(headers: fields, identity: userID)
    }
}

extension HTTPField.Name {
    /// `X-Auth-Token`.
    package static var xAuthToken: Self { Self("X-Auth-Token") ?? .authorization }
    /// `X-User-Id`.
    package static var xUserID: Self { Self("X-User-Id") ?? .authorization }
}
