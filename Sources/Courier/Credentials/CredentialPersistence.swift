/// Keeps credentials somewhere durable (the Keychain on Apple platforms); the app supplies it.
public protocol CredentialPersistence: Sendable {
    /// Loads the saved credentials, if any.
    func load() -> Credentials?
    /// Saves credentials, or deletes them when nil.
    func save(_ credentials: Credentials?)
}
