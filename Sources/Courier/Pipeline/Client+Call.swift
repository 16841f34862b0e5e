import Foundation
import HTTPTypes
import OpenAPIRuntime

/// The non-generic core of every call, in the order it runs: build the request, run the chain
/// (folded once, see ``CallChain``: redirects, coalescing, the app's middlewares, then the transport
/// at its end), gather the body at the edge, validate. Decoding and the report are the generic
/// shell's (`Client.swift`).
extension Client {
    /// A call from its endpoint to a validated response.
    @usableFromInline
    func run(_ call: consuming EndpointCall, policy: CachePolicy) async throws(CourierError) -> ValidatedResponse {
        try await run(call, policy: policy, destination: .memory)
    }

    /// A call from its endpoint to a validated response, a successful response's body going to
    /// `destination`.
    func run(
        _ call: consuming EndpointCall, policy: CachePolicy, destination: BodyDestination, uploadProgress: ProgressReporter? = nil
    ) async throws(CourierError) -> ValidatedResponse {
        var prepared = try build(call, policy: policy)
        prepared.uploadProgress = uploadProgress
        if destination.isTransfer { prepared.deliverBody(to: destination) }
        do {
            let outcome = try await runChain(prepared)
            return try validated(outcome, prepared)
        } catch {
            throw CourierError.from(transportError: error)
                .filling(endpoint: prepared.context.endpoint, request: prepared.summary, redaction: configuration.redaction)
        }
    }

    /// A call's request, context and evidence, ready to send.
    private struct PreparedCall: Sendable {
        var built: BuiltRequest
        var context: RequestContext
        var summary: RequestSummary
        var started: ContinuousClock.Instant
        var destination = BodyDestination.memory
        /// The user the call must be for (see ``EndpointCall/requiredIdentity``).
        var requiredIdentity: CallIdentity?
        /// Where an upload reports the bytes of its body as the transport reads them.
        var uploadProgress: ProgressReporter?

        /// Makes the call a transfer whose successful body goes to `destination`. Its body is not
        /// held in memory: the size limit is for bodies gathered to decode (it still bounds an
        /// error status's body, at the edge).
        mutating func deliverBody(to destination: BodyDestination) {
            self.destination = destination
            context.maximumBodySize = .max
            context.isTransfer = true
            if case .file(let download) = destination { context.download = download }
        }
    }

    // MARK: 1. Build the request

    /// The request and the context it runs in; a bad endpoint fails here, before any I/O.
    private func build(_ call: borrowing EndpointCall, policy: CachePolicy) throws(CourierError) -> PreparedCall {
        let started = ContinuousClock.now
        let built = try buildRequest(for: call)
        var context = RequestContext(
            endpoint: call.name,
            cachePolicy: policy,
            isIdempotent: call.isIdempotent,
            timeout: call.timeout ?? configuration.timeout,
            requiresAuthentication: call.requiresAuthentication
        )
        context.maximumBodySize = configuration.maximumBodySize
        context.pathTemplate = call.pathTemplate
        context.telemetry = configuration.telemetry
        context.requestBodyIsSelfContained = built.body?.isSelfContained ?? true
        context.redaction = configuration.redaction
        context.origin = baseURL
        context.deliversOnlyToOrigin = call.deliversOnlyToOrigin
        let summary = RequestSummary(
            method: built.head.method, baseURL: baseURL, path: built.head.path, redaction: configuration.redaction
        )
        return PreparedCall(
            built: built, context: context, summary: summary, started: started, requiredIdentity: call.requiredIdentity)
    }

    // MARK: 2. Run the chain

    /// What the chain answered, its body read at the edge.
    private struct CallOutcome: Sendable {
        var head: HTTPResponse
        /// Where the answer came from, how many attempts it took, why it was not retried.
        var answer: Answer
        var body = Data()
        /// A transfer's body size (its bytes are in a file, not in ``body``).
        var bodySize: Int64?
        /// A streamed call's body, handed to the caller unread.
        var stream: HTTPBody?
    }

    /// The call's context completed with who the call is for, then the chain, then the edge, the
    /// one place a body is read whole: gathered within the size limit for a decoded call or an error
    /// status, written to its file for a download, handed on as it is for a stream. The context
    /// travels as a value: it is ``RequestContext/current`` only where the chain hands it to code of
    /// the app's (a plain `ClientMiddleware` or `ClientTransport`).
    private func runChain(_ call: PreparedCall) async throws -> CallOutcome {
        var context = call.context
        // Who the call is for is read from the credential provider before any middleware runs, so
        // no order of middlewares can file one user's response under another.
        if let credentials {
            context.identity = context.requiresAuthentication ? await CallIdentity.of(credentials) : .anonymous
        }
        if let required = call.requiredIdentity, context.requiresAuthentication, context.identity != required {
            throw CourierError(.anotherUserSignedIn, detail: "The call was made for another user than the one signed in")
        }
        // A step may keep running the chain after the call returned (a cache's revalidation); the
        // chain holds no client, so that work never keeps its own client alive.
        context.background = backgroundWork
        let requestBody = try await call.built.body?.httpBody().reportingProgress(to: call.uploadProgress)
        let answer = try await chain.run(call.built.head, requestBody, baseURL, context)
        let (head, body) = (answer.response, answer.body)
        guard head.status.kind == .successful, call.destination.isTransfer else {
            return CallOutcome(head: head, answer: answer, body: try await collectResponseBody(body, of: head, limit: configuration.maximumBodySize))
        }
        var outcome = CallOutcome(head: head, answer: answer)
        switch call.destination {
        case .memory: break
        case .file(let download):
            // Written by the attempt that received it (see `ChainEnd`), unless a middleware answered.
            if let body { try await download.receive(head, body: body) }
            outcome.bodySize = try await download.complete()
        case .caller: outcome.stream = body ?? HTTPBody()
        }
        return outcome
    }

    // MARK: 3. Validate

    /// The response checked: not cancelled meanwhile, an acceptable status, accepted by the validator.
    private func validated(_ outcome: CallOutcome, _ call: PreparedCall) throws(CourierError) -> ValidatedResponse {
        // A call cancelled while the last bytes arrived must not report a success later.
        if Task.isCancelled { throw CourierError(.cancelled, detail: "The call was cancelled") }
        let answer = outcome.answer
        try validate(
            outcome.head, body: outcome.body, endpoint: call.context.endpoint, source: answer.source,
            notRetriedBecause: answer.notRetriedBecause, checksContent: !call.destination.isTransfer,
            deliversOnlyToOrigin: call.context.deliversOnlyToOrigin)
        return ValidatedResponse(
            head: outcome.head, body: outcome.body, request: call.summary, source: answer.source, attempts: answer.attempts,
            started: call.started, bodySize: outcome.bodySize, stream: outcome.stream
        )
    }
}
