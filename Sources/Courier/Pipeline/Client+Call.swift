import Foundation
import HTTPTypes
import OpenAPIRuntime

/// The non-generic core of every call, in the order it runs: build the request, run the chain
/// (folded once, see ``CallChain``: redirects, coalescing, the app's middlewares, then the transport
/// at its end), read the body at the edge, validate. Each step fills in the one ``EndpointCall``;
/// decoding and the ``Response`` are the generic shell's (`Client.swift`).
extension Client {
    /// Runs a call from its endpoint's values to a validated response.
    @usableFromInline
    func run(_ call: consuming EndpointCall) async throws(CourierError) -> EndpointCall {
        let request = try build(&call)
        do {
            let context = try await context(of: call)
            let answer = try await chain.run(request, try await requestBody(of: call), baseURL, context)
            try await receive(answer, into: &call)
            try validate(call)
            return call
        } catch {
            throw CourierError.from(transportError: error).filling(endpoint: call.name, request: summary(of: call), redaction: configuration.redaction)
        }
    }

    // MARK: 1. Before the chain

    /// What the chain's steps know of the call beyond its request, the user it is for among them.
    /// Computed from the call: each of its facts lives there.
    private func context(of call: EndpointCall) async throws(CourierError) -> RequestContext {
        var context = RequestContext(
            endpoint: call.name, cachePolicy: call.policy, isIdempotent: call.isIdempotent,
            timeout: call.timeout ?? configuration.timeout, requiresAuthentication: call.requiresAuthentication,
            facts: CallFacts(telemetry: configuration.telemetry, redaction: configuration.redaction))
        context.facts.destination = call.destination
        // A transfer's body is not held in memory: the limit is for bodies gathered to decode (it
        // still bounds an error status's body, at the edge).
        context.facts.maximumBodySize = call.destination.isTransfer ? .max : configuration.maximumBodySize
        context.facts.pathTemplate = call.pathTemplate
        context.facts.requestBodyIsSelfContained = call.requestBody?.isSelfContained ?? true
        context.facts.origin = baseURL
        context.facts.deliversOnlyToOrigin = call.deliversOnlyToOrigin
        // Who the call is for is read from the credential provider before any middleware runs, so
        // no order of middlewares can file one user's response under another.
        if let credentials {
            context.facts.identity = call.requiresAuthentication ? await CallIdentity.of(credentials) : .anonymous
        }
        if let required = call.requiredIdentity, call.requiresAuthentication, context.facts.identity != required {
            throw CourierError(.anotherUserSignedIn, detail: "The call was made for another user than the one signed in")
        }
        // A step may keep running the chain after the call returned (a cache's revalidation); the
        // chain holds no client, so that work never keeps its own client alive.
        context.facts.background = backgroundWork
        return context
    }

    /// The request body as the chain takes it, reporting an upload's progress as it is read.
    private func requestBody(of call: EndpointCall) async throws -> HTTPBody? {
        try await call.requestBody?.httpBody().reportingProgress(to: call.uploadProgress)
    }

    // MARK: 2. The edge

    /// The chain's answer read into the call: the one place a body is read whole, gathered within
    /// the size limit for a decoded call or an error status, written to its file for a download,
    /// handed on as it is for a stream.
    private func receive(_ answer: Answer, into call: inout EndpointCall) async throws {
        call.answeredHead = answer.response
        call.source = answer.source
        call.attempts = answer.attempts
        call.notRetriedBecause = answer.notRetriedBecause
        guard answer.response.status.kind == .successful, call.destination.isTransfer else {
            call.received = try await collectResponseBody(of: answer, limit: configuration.maximumBodySize)
            return
        }
        switch call.destination {
        case .memory: break
        case .file(let download):
            // Written by the attempt that received it (see `ChainEnd`), unless a middleware answered.
            if let body = answer.body { try await download.receive(answer.response, body: body) }
            call.downloadedSize = try await download.complete()
        case .caller: call.stream = answer.body ?? HTTPBody()
        }
    }

    // MARK: 3. Validate

    /// The response checked: not cancelled meanwhile, an acceptable status, accepted by the validator.
    private func validate(_ call: EndpointCall) throws(CourierError) {
        // A call cancelled while the last bytes arrived must not report a success later.
        if Task.isCancelled { throw CourierError(.cancelled, detail: "The call was cancelled") }
        try validate(
            call.head, body: call.received, endpoint: call.name, source: call.source,
            notRetriedBecause: call.notRetriedBecause, checksContent: !call.destination.isTransfer,
            deliversOnlyToOrigin: call.deliversOnlyToOrigin)
    }

    // MARK: The report

    /// The call's method and redacted URL, for its response and its errors (redacted when read).
    @usableFromInline
    func summary(of call: EndpointCall) -> RequestSummary {
        RequestSummary(method: call.method, baseURL: baseURL, path: call.request?.path, redaction: configuration.redaction)
    }

    /// The response to a call that ran: the one place a ``Response`` is made.
    @inlinable
    func response<Value>(_ value: Value, of call: EndpointCall, bodySize: Int) -> Response<Value> {
        Response(
            value: value, head: call.head, request: summary(of: call), source: call.source,
            duration: ContinuousClock.now - call.started, attempts: call.attempts, bodySize: bodySize,
            redaction: configuration.redaction)
    }
}
