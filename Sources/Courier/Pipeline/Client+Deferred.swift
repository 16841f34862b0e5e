import Foundation
import HTTPTypes
import OpenAPIRuntime

/// An endpoint's request built now to be sent later (an outbox's write), as the endpoint alone
/// makes it: without the client's default header fields or common query, which the client adds
/// again the day it is sent.
package struct DeferredRequest: Sendable, Hashable {
    package var operationName: String
    /// The endpoint's path template, for metrics (`/users/{}/posts`).
    package var pathTemplate: String
    package var method: HTTPRequest.Method
    /// The path and query relative to the client's base URL, encoded.
    package var target: String
    /// The endpoint's own header fields, its `Idempotency-Key` and its body's content type among them.
    package var headerFields: HTTPFields
    package var timeout: Duration?
    package var requiresAuthentication: Bool

    package init(
        operationName: String, pathTemplate: String, method: HTTPRequest.Method, target: String, headerFields: HTTPFields,
        timeout: Duration?, requiresAuthentication: Bool
    ) {
        self.operationName = operationName
        self.pathTemplate = pathTemplate
        self.method = method
        self.target = target
        self.headerFields = headerFields
        self.timeout = timeout
        self.requiresAuthentication = requiresAuthentication
    }
}

/// A deferred request's body: bytes, or a stream (a file, a form with files) that can be read once.
package enum DeferredBody: Sendable {
    case bytes(Data)
    case stream(HTTPBody)
}

extension Client {
    /// The request `endpoint` makes, to be sent later with ``sendDeferred(_:body:for:)``.
    /// - Throws: ``CourierError/Kind/invalidRequest`` for a request that can't be built or a body
    ///   that can't be read.
    package func deferredRequest(for endpoint: some Endpoint) async throws(CourierError) -> (request: DeferredRequest, body: DeferredBody?) {
        var call = EndpointCall(endpoint, cachePolicy: .withoutCache, otherwise: .withoutCache)
        let built = try build(&call, clientDefaults: false)
        let request = DeferredRequest(
            operationName: call.name, pathTemplate: call.pathTemplate, method: call.method, target: built.path ?? "/",
            headerFields: built.headerFields, timeout: call.timeout, requiresAuthentication: call.requiresAuthentication)
        guard let body = call.requestBody else { return (request, nil) }
        if case .bytes(let data) = body { return (request, .bytes(data)) }
        do {
            return (request, .stream(try await body.httpBody()))
        } catch {
            var failure = CourierError(.invalidRequest, detail: "could not read the body: \(error)", underlying: error)
            failure.endpoint = call.name
            throw failure
        }
    }

    /// Who a request that `requiresAuthentication` is made for, as the client's credential
    /// provider says now; nil when it carries no credentials or the client has no provider.
    package func identity(ifAuthenticating requiresAuthentication: Bool) async -> CallIdentity? {
        guard requiresAuthentication, let credentials else { return nil }
        return await CallIdentity.of(credentials)
    }

    /// Whether a request made for `identity` may be sent now: nobody else is signed in.
    package func isSignedIn(_ identity: CallIdentity?) async -> Bool {
        guard let identity, let credentials else { return true }
        return await CallIdentity.of(credentials) == identity
    }

    /// Sends a deferred request through the chain, as any call: the client's default header
    /// fields and common query are added, then credentials, only for `identity` (another user
    /// signed in fails the call with `anotherUserSignedIn` before anything is sent). The write goes
    /// only to its origin (see ``CallFacts/deliversOnlyToOrigin``), and may be sent again
    /// (it carries its `Idempotency-Key`).
    package func sendDeferred(
        _ deferred: DeferredRequest, body: RequestBody?, for identity: CallIdentity?
    ) async throws(CourierError) -> Response<Data> {
        let endpoint = DeferredEndpoint(deferred: deferred, body: body)
        var call = EndpointCall(endpoint, cachePolicy: .followHTTP, otherwise: .followHTTP)
        var target = deferred.target
        if !configuration.commonQuery.isEmpty {
            target += (target.contains("?") ? "&" : "?") + encodeQuery(configuration.commonQuery)
        }
        call.target = target
        call.pathTemplate = deferred.pathTemplate
        call.isIdempotent = true
        call.requiredIdentity = identity
        call.deliversOnlyToOrigin = true
        return try decode(try await run(call), for: endpoint).response
    }
}

/// A deferred request as an endpoint, to run through the client's call.
private struct DeferredEndpoint: Endpoint {
    typealias Response = Data
    let deferred: DeferredRequest
    let body: RequestBody?

    var operationName: String { deferred.operationName }
    var method: HTTPRequest.Method { deferred.method }
    var path: EndpointPath { "/" }
    var headers: HTTPFields { deferred.headerFields }
    var timeout: Duration? { deferred.timeout }
    var requiresAuthentication: Bool { deferred.requiresAuthentication }
}
