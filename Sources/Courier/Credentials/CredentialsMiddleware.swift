import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Adds the signed-in user's credentials to every request that requires authentication.
///
/// Credentials travel in header fields, never in the URL, and only to the origin the call started
/// at: a redirect to another origin carries none (see ``RedirectMiddleware``). A ``Client`` reads
/// the user's identity from this middleware's provider before the chain runs, so the cache keeps
/// each user's responses apart whatever the order of the middlewares. Each attempt (a retry, a
/// replay after a token refresh, a background revalidation) sends the credentials of that same
/// user: when another user signed in meanwhile, or nobody is, the attempt fails as cancelled. A
/// call that started with nobody signed in sends no credentials on any attempt.
public struct CredentialsMiddleware: ClientMiddleware, CourierMiddleware {
    /// Where the credentials come from.
    package let provider: any CredentialProvider

    /// Creates the middleware over a credential provider (usually a ``CredentialStore``).
    public init(provider: any CredentialProvider) {
        self.provider = provider
    }

    /// Adds the credential header fields (replacing fields of the same name) and passes the request
    /// on; a hop to another origin gets none.
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
        // The call (and the cache partition its answer goes to) is for the user it started with:
        // a call that started with nobody signed in sends nobody's credentials, and after a
        // switch of account an attempt must not send another user's under it.
        if context.facts.identity == .anonymous { return try await next(request, body, baseURL, context) }
        let credentials = await provider.currentCredentials()
        if case .user(let identity) = context.facts.identity, credentials?.identity != identity {
            throw CourierError(.cancelled, detail: "The signed-in user changed during the call")
        }
        guard let credentials else { return try await next(request, body, baseURL, context) }
        return try await next(request.adding(credentials), body, baseURL, context)
    }
}

extension HTTPRequest {
    /// The request with the credentials' header fields, replacing any of the same name.
    func adding(_ credentials: Credentials) -> HTTPRequest {
        var request = self
        for name in Set(credentials.headers.map(\.name)) { request.headerFields[values: name] = [] }
        request.headerFields.append(contentsOf: credentials.headers)
        return request
    }
}
