import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A write kept to be sent later (an outbox's item): the endpoint's request as built, without the
/// client's default header fields, its common query or any secret, which the client adds again
/// the day it is sent.
package struct KeptRequest: Sendable, Codable, Hashable {
    package var operationName: String
    /// The endpoint's path template, for metrics (`/users/{}/posts`).
    package var pathTemplate: String
    package var method: String
    /// The path and query relative to the client's base URL, encoded.
    package var target: String
    /// The endpoint's own header fields, with `Idempotency-Key` and the body's content type, as
    /// name and value pairs in order.
    package var headers: [[String]]
    package var timeoutMilliseconds: Int64?
    package var requiresAuthentication: Bool

    /// The `Idempotency-Key` it is sent with, fixed when it was kept.
    package var idempotencyKey: String? {
        headers.first { $0.count == 2 && $0[0].lowercased() == "idempotency-key" }?[1]
    }

    var headerFields: HTTPFields {
        var fields = HTTPFields()
        for pair in headers where pair.count == 2 {
            if let name = HTTPField.Name(pair[0]) { fields.append(HTTPField(name: name, value: pair[1])) }
        }
        return fields
    }
}

/// A kept request's body: bytes, or a stream (a file, a form with files) that the outbox writes
/// to a file of its own.
package enum KeptBody: Sendable {
    case bytes(Data)
    case stream(HTTPBody)
}

extension Client {
    /// The request an endpoint makes, as an outbox keeps it: a new `Idempotency-Key` unless the
    /// endpoint has its own; credential fields and those on the client's secret list dropped (the
    /// chain adds credentials when it is sent), whatever the app made of that list.
    /// - Throws: ``CourierError/Kind/invalidRequest`` for a request that can't be built, or whose
    ///   query carries a secret (a kept request is written to disk, and a secret never is).
    package func keptRequest(for endpoint: some Endpoint) async throws(CourierError) -> (request: KeptRequest, body: KeptBody?) {
        let call = EndpointCall(endpoint)
        let built = try buildRequest(for: call, clientDefaults: false)
        let redaction = configuration.redaction
        let target = built.head.path ?? "/"
        if let name = redaction.firstSecretQueryName(in: target) {
            var error = CourierError(
                .invalidRequest,
                detail: "the query item '\(name)' is a secret, which a kept request never writes to disk; send it in a header field the chain adds")
            error.endpoint = call.name
            throw error
        }
        var headers: [[String]] = []
        for field in built.head.headerFields where !redaction.isCredential(header: field.name) {
            headers.append([field.name.rawName, field.value])
        }
        if !headers.contains(where: { $0.first?.lowercased() == "idempotency-key" }) {
            headers.append(["Idempotency-Key", IdempotencyKey.generated.valueForCall()])
        }
        let request = KeptRequest(
            operationName: call.name, pathTemplate: call.pathTemplate, method: call.method.rawValue, target: target,
            headers: headers, timeoutMilliseconds: call.timeout.map { Int64($0.inSeconds * 1000) },
            requiresAuthentication: call.requiresAuthentication)
        guard let body = built.body else { return (request, nil) }
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
    package func keepingIdentity(requiresAuthentication: Bool) async -> CallIdentity? {
        guard requiresAuthentication, let credentials else { return nil }
        return await CallIdentity.of(credentials)
    }

    /// Whether a kept request for `identity` may be sent now: nobody else is signed in.
    package func isSignedIn(_ identity: CallIdentity?) async -> Bool {
        guard let identity, let credentials else { return true }
        return await CallIdentity.of(credentials) == identity
    }

    /// Sends a kept request through the chain, as any call: the client's default header fields and
    /// common query are added, then credentials, only for `identity` (another user signed in fails
    /// the call with `keptForAnotherUser` before anything is sent). A redirect is followed only
    /// where it delivers this same write to the same origin (see ``RedirectMiddleware``).
    package func send(
        _ kept: KeptRequest, body: RequestBody?, identity: CallIdentity?
    ) async throws(CourierError) -> Response<Data> {
        let endpoint = KeptEndpoint(kept: kept, body: body)
        var call = EndpointCall(endpoint)
        var target = kept.target
        if !configuration.commonQuery.isEmpty {
            target += (target.contains("?") ? "&" : "?") + encodeQuery(configuration.commonQuery)
        }
        call.target = target
        call.pathTemplate = kept.pathTemplate
        call.isIdempotent = true
        call.requiredIdentity = identity
        call.isKeptWrite = true
        let validated = try await run(call, policy: .followHTTP)
        return try decode(validated, for: endpoint).response
    }
}

/// A kept request as an endpoint, to run through the client's call.
private struct KeptEndpoint: Endpoint {
    typealias Response = Data
    let kept: KeptRequest
    let body: RequestBody?

    var operationName: String { kept.operationName }
    var method: HTTPRequest.Method { HTTPRequest.Method(kept.method) ?? .post }
    var path: EndpointPath { "/" }
    var headers: HTTPFields { kept.headerFields }
    var timeout: Duration? { kept.timeoutMilliseconds.map { .milliseconds($0) } }
    var requiresAuthentication: Bool { kept.requiresAuthentication }
}
