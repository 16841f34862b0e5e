import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Refreshes expired credentials when a request is refused with 401, then replays the request once.
///
/// One refresh runs however many requests fail at once (single flight); each of them is replayed
/// exactly once with the new credentials. A request refused for credentials older than the store's
/// (a refresh finished meanwhile) is replayed without refreshing again. A 401 on the replay is
/// returned as is: no loops.
///
/// Only a definitive refusal ends the session: the refresh closure throws a ``CourierError`` of kind
/// ``CourierError/Kind/sessionExpired``, or one with status 401, or 400 with `invalid_grant` (the
/// refresh endpoint rejected the refresh token). Then the store is signed out once, its sign-out
/// observers clear the user's data, and every waiting request fails with `sessionExpired`. Any
/// other failure (offline, a timeout, a lost connection, a 5xx) keeps the credentials: the waiting
/// requests fail with that error's own kind, so the UI says "No Internet connection" rather than
/// "please sign in", and the next refused request refreshes again. A request waits for a refresh
/// no longer than its own timeout (then it fails with ``CourierError/Kind/timedOut``; the refresh
/// goes on for the others).
///
/// It works in any order with ``CredentialsMiddleware``: a replay carries the new credentials
/// whether they are added further in or were already on the request.
///
/// ```swift
/// let store = CredentialStore(.bearer(token, identity: userID, refreshToken: refreshToken))
/// let client = Client(baseURL: url, middlewares: [
///     TokenRefreshMiddleware(store: store) { old in try await auth.refresh(old.refreshToken) },
///     CredentialsMiddleware(provider: store),
/// ])
/// ```
public struct TokenRefreshMiddleware: ClientMiddleware, CourierMiddleware {
    /// Decides whether a response says the credentials are no longer valid.
    typealias TokenFailurePredicate = @Sendable (_ response: HTTPResponse, _ context: RequestContext?) -> Bool

    /// The credentials refreshed and read.
    let store: CredentialStore
    private let isTokenFailure: TokenFailurePredicate
    private let coordinator: RefreshCoordinator

    /// Creates the middleware.
    /// - Parameters:
    ///   - store: Holds the credentials; updated after a refresh, signed out when it fails.
    ///   - isTokenFailure: Which responses mean the token expired; ``isTokenFailure(_:context:)`` unless given.
    ///   - refresh: Gets the current credentials (with their refresh token) and returns new ones;
    ///     throwing a refusal (see above) ends the session, any other error keeps it.
    public init(
        store: CredentialStore,
        isTokenFailure: @escaping @Sendable (_ response: HTTPResponse, _ context: RequestContext?) -> Bool = TokenRefreshMiddleware.isTokenFailure,
        refresh: @escaping @Sendable (Credentials) async throws -> Credentials
    ) {
        self.store = store
        self.isTokenFailure = isTokenFailure
        self.coordinator = RefreshCoordinator(store: store, refresh: refresh)
    }

    /// The default predicate: a 401 on an authenticated endpoint, unless `WWW-Authenticate` reports
    /// `error="insufficient_scope"` (RFC 6750 §3.1: valid token, missing rights; a refresh would not help).
    /// - Parameters:
    ///   - response: The response head.
    ///   - context: The call's context; an endpoint with `requiresAuthentication == false` sent no token.
    /// - Returns: Whether refreshing the credentials may fix the response.
    public static func isTokenFailure(_ response: HTTPResponse, context: RequestContext?) -> Bool {
        guard response.status == .unauthorized, context?.requiresAuthentication ?? true, context?.isCrossOriginHop != true
        else { return false }
        let challenges = response.headerFields[values: .wwwAuthenticate].joined(separator: ",").lowercased()
        let compact = challenges.filter { !$0.isWhitespace && $0 != "\"" }
        return !compact.contains("error=insufficient_scope")
    }

    /// Passes the request on; on a token failure gets new credentials and replays it once.
    /// - Parameters:
    ///   - request: The request, without credentials (``CredentialsMiddleware`` adds them further in).
    ///   - body: The request body; a body that can be iterated only once is not replayed.
    ///   - baseURL: The base URL.
    ///   - context: The call's context; a hop to another origin is never refreshed for.
    ///   - next: The rest of the chain.
    /// - Returns: The answer, or the replay's answer.
    /// - Throws: ``CourierError/Kind/sessionExpired`` when the refresh token was refused; the
    ///   refresh's own error when it failed otherwise; ``CourierError/Kind/timedOut`` when the
    ///   refresh takes longer than the request's timeout.
    package func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        context: RequestContext,
        next: @escaping ChainNext
    ) async throws -> Answer {
        guard context.requiresAuthentication, !context.isCrossOriginHop else {
            return try await next(request, body, baseURL, context)
        }
        let sent = store.credentials
        let answer = try await next(request, body, baseURL, context)
        guard let sent, isTokenFailure(answer.response, context.described), body?.iterationBehavior != .single else {
            return answer
        }
        let fresh = try await coordinator.credentials(
            replacing: sent, waitingAtMost: context.described?.timeout ?? Client.Configuration.defaultTimeout, telemetry: context.facts.telemetry
        )
        var replay = try await next(Self.replay(request, sent: sent, fresh: fresh), body, baseURL, context)
        replay.attempts += answer.attempts
        return replay
    }

    /// The request to replay: with the new credentials where it carried the old ones (a
    /// ``CredentialsMiddleware`` listed before this one added them), else as it was (one listed
    /// after adds the new ones itself).
    static func replay(_ request: HTTPRequest, sent: Credentials, fresh: Credentials) -> HTTPRequest {
        let carriesSent = sent.headers.allSatisfy { field in request.headerFields[values: field.name].contains(field.value) }
        guard carriesSent, !sent.headers.isEmpty else { return request }
        var replay = request
        for name in Set(sent.headers.map(\.name)) { replay.headerFields[values: name] = [] }
        return replay.adding(fresh)
    }
}
