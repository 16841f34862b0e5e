import Courier
import CourierAsyncHTTPClient
import CourierCache
import Foundation
import Logging
import OpenAPIRuntime

/// The sample social API through its generated ``Client``, over Courier's AsyncHTTPClient transport
/// and Courier's cache, retry, token refresh, credentials and logging middlewares.
///
/// Two generated clients share one transport. ``auth`` signs in and refreshes tokens: it carries no
/// credentials and never refreshes, so a 401 there means a wrong password or an ended session.
/// ``api`` makes every other call with the whole chain:
///
/// ```swift
/// let social = SocialService(serverURL: url, cacheStore: try SQLiteCacheStorage(fileURL: file, maximumSize: 20 << 20))
/// try await social.signIn(username: "ann", password: "secret")
/// let friends = try await social.api.listFriends(path: .init(id: 1)).ok.body.json
/// ```
public struct SocialService: Sendable {
    /// Every call but signing in: cache, retry, token refresh, credentials and logging, in that order.
    public let api: Client
    /// Signing in and refreshing tokens: retry and logging only.
    public let auth: Client
    /// The signed-in user's tokens: ``signIn(username:password:)`` fills them, a refresh replaces them.
    public let credentials: CredentialStore
    /// The persistent HTTP cache ``api`` reads and fills, kept per user.
    public let cache: HTTPCache

    /// Creates both clients.
    /// - Parameters:
    ///   - serverURL: Where the API is.
    ///   - cacheStore: Where cached responses live.
    ///   - transport: Courier's AsyncHTTPClient transport over its shared `HTTPClient` unless given.
    ///   - retryPolicy: When to retry; ``RetryPolicy/default`` unless given.
    ///   - logger: Where the request and response lines go (debug level, secrets redacted); silent unless given.
    public init(
        serverURL: URL,
        cacheStore: any CacheStorage,
        transport: any ClientTransport = AsyncHTTPClientTransport(),
        retryPolicy: RetryPolicy = .default,
        logger: Logger = Logger(label: "social-api", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        let credentials = CredentialStore()
        // A generated client has no Courier request context, so the cache learns who is signed in
        // from the credential provider itself: each user's responses stay apart.
        let cache = HTTPCache(storage: cacheStore, credentials: credentials)
        let retry = RetryMiddleware(policy: retryPolicy)
        let logging = LoggingMiddleware(logger: logger)
        let auth = Client(serverURL: serverURL, transport: transport, middlewares: [retry, logging])
        self.auth = auth
        self.credentials = credentials
        self.cache = cache
        self.api = Client(
            serverURL: serverURL,
            transport: transport,
            middlewares: [
                cache,  // answers fresh responses without the network
                retry,  // each attempt runs the rest of the chain again…
                TokenRefreshMiddleware(store: credentials) { old in try await Self.refresh(old, with: auth) },
                CredentialsMiddleware(provider: credentials),  // …so it carries the current token
                logging,  // one line per attempt
            ]
        )
    }

    /// Signs in and keeps the tokens in ``credentials``.
    /// - Throws: A `ClientError` whose underlying error is a ``CourierError`` of kind
    ///   ``CourierError/Kind/rejected`` when the server refuses the name or password.
    public func signIn(username: String, password: String) async throws {
        switch try await auth.login(body: .json(.init(username: username, password: password))) {
        case .ok(let ok):
            credentials.update(Self.credentials(from: try ok.body.json))
        case .unauthorized(let refused):
            let message = try? refused.body.json.message
            throw CourierError(.rejected, detail: "Sign-in refused", serverMessage: message, status: .unauthorized)
        case .undocumented(let status, _):
            throw CourierError(.unacceptableStatus, detail: "Sign-in answered \(status)", status: .init(code: status))
        }
    }

    /// Trades the refresh token of `old` for new credentials; a refusal ends the session.
    static func refresh(_ old: Credentials, with auth: Client) async throws -> Credentials {
        guard let refreshToken = old.refreshToken else {
            throw CourierError(.sessionExpired, detail: "The credentials carry no refresh token")
        }
        switch try await auth.refreshToken(body: .json(.init(refreshToken: refreshToken))) {
        case .ok(let ok):
            return credentials(from: try ok.body.json)
        case .unauthorized(let refused):
            // TokenRefreshMiddleware signs the store out on `sessionExpired` and fails the waiting calls with it.
            let message = try? refused.body.json.message
            throw CourierError(.sessionExpired, detail: "The refresh token was refused", serverMessage: message, status: .unauthorized)
        case .undocumented(let status, _):
            // Any other failure keeps the session: the next refused call refreshes again.
            throw CourierError(.server, detail: "Token refresh answered \(status)", status: .init(code: status))
        }
    }

    private static func credentials(from tokens: Components.Schemas.Tokens) -> Credentials {
        .bearer(tokens.token, identity: String(tokens.userId), refreshToken: tokens.refreshToken)
    }
}
