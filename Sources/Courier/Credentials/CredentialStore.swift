/// The signed-in user's credentials, shared by clients and middlewares; signing out clears them.
///
/// Observers registered with ``onSignOut(_:)`` run when the user signs out, e.g. to clear that
/// user's cache partition.
public final class CredentialStore: CredentialProvider {
    private struct State {
        var credentials: Credentials?
        var observers: [@Sendable (_ identity: String?) -> Void] = []
    }

    private let state: Locked<State>
    private let persistence: (any CredentialPersistence)?

    /// Creates a store, loading from `persistence` when given and `initial` is nil.
    public init(_ initial: Credentials? = nil, persistence: (any CredentialPersistence)? = nil) {
        self.persistence = persistence
        state = Locked(State(credentials: initial ?? persistence?.load()))
    }

    /// The current credentials.
    public func currentCredentials() async -> Credentials? { credentials }

    /// The current credentials, read synchronously.
    public var credentials: Credentials? { state.withLock { $0.credentials } }

    /// Replaces the credentials (after signing in or refreshing a token).
    public func update(_ credentials: Credentials) {
        state.withLock { $0.credentials = credentials }
        persistence?.save(credentials)
    }

    /// Clears the credentials and tells every sign-out observer which identity left.
    public func signOut() {
        let (identity, observers) = state.withLock { state in
            let identity = state.credentials?.identity
            state.credentials = nil
            return (identity, state.observers)
        }
        persistence?.save(nil)
        for observer in observers { observer(identity) }
    }

    /// Registers code to run on every sign-out with the identity that signed out.
    public func onSignOut(_ observer: @escaping @Sendable (_ identity: String?) -> Void) {
        state.withLock { $0.observers.append(observer) }
    }
}
