/// Supplies the credentials of the signed-in user, from memory, the Keychain or anywhere else.
public protocol CredentialProvider: Sendable {
    /// The current credentials, or nil when nobody is signed in.
    func currentCredentials() async -> Credentials?
}
