/// Who a call is made for, as the client knows it before any middleware runs.
///
/// The client reads it from its `CredentialsMiddleware`'s provider, so a cache keeps each user's
/// responses apart whatever order the middlewares are listed in.
package enum CallIdentity: Sendable, Hashable {
    /// The client has no credential provider: who is signed in can't be known up front.
    case unknown
    /// No credentials go with this call (nobody is signed in, or the endpoint sends none).
    case anonymous
    /// The call carries the credentials of this user (``Credentials/identity``).
    case user(String)

    /// The identity of `provider`'s current credentials, or ``anonymous`` when nobody is signed in.
    package static func of(_ provider: any CredentialProvider) async -> CallIdentity {
        guard let credentials = await provider.currentCredentials() else { return .anonymous }
        return .user(credentials.identity)
    }
}
