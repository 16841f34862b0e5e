import Foundation
import HTTPTypes
import OpenAPIRuntime

/// The non-generic core of every call: build the request, run it (alone or joined with an identical
/// GET in flight) through the middleware chain and the transport, and check the response.
extension Client {
    /// The non-generic core of a call: build, chain, transport, validate.
    ///
    /// The synchronous steps live in functions of their own that are not inlined here: an async
    /// function keeps its locals in a frame on the task's allocator, and a call made in a new task
    /// (the usual case in an app) pays for every slab that frame needs. Their temporaries stay on
    /// the thread's stack instead.
    @usableFromInline
    func run(_ call: consuming EndpointCall, policy: CachePolicy) async throws(CourierError) -> ValidatedResponse {
        let prepared = try prepare(call, policy: policy)
        do {
            return try finish(try await outcome(of: prepared), prepared)
        } catch {
            throw failure(error, prepared)
        }
    }

    /// A call's request, context and evidence, ready to send.
    private struct PreparedCall: Sendable {
        var built: BuiltRequest
        var context: RequestContext
        var summary: RequestSummary
        var policy: CachePolicy
        var started: ContinuousClock.Instant
    }

    /// Builds the request and the context it runs in; a bad endpoint fails here, before any I/O.
    @inline(never)
    private func prepare(_ call: borrowing EndpointCall, policy: CachePolicy) throws(CourierError) -> PreparedCall {
        let started = ContinuousClock.now
        let built = try buildRequest(for: call)
        let context = RequestContext(
            endpoint: call.name,
            cachePolicy: policy,
            isIdempotent: call.isIdempotent,
            timeout: call.timeout ?? configuration.timeout,
            requiresAuthentication: call.requiresAuthentication,
            maximumBodySize: configuration.maximumBodySize,
            pathTemplate: call.pathTemplate,
            telemetry: configuration.telemetry
        )
        let summary = RequestSummary(
            method: built.head.method, baseURL: baseURL, path: built.head.path, redaction: configuration.redaction
        )
        return PreparedCall(built: built, context: context, summary: summary, policy: policy, started: started)
    }

    /// Sends the call, or joins an identical GET already in flight when the client coalesces.
    private func outcome(of call: PreparedCall) async throws -> InFlightCalls.Outcome {
        var context = call.context
        context.identity = await identity(requiresAuthentication: context.requiresAuthentication)
        if hasCache { context.background = backgroundRevalidation(of: call.built, context: context) }
        guard let key = coalescingKey(call, identity: context.identity) else { return try await perform(call.built, context: context) }
        return try await joinOrPerform(call.built, context: context, key: key)
    }

    /// Who the call is made for: read from the credential provider before any middleware runs, so no
    /// order of middlewares can file one user's response under another.
    private func identity(requiresAuthentication: Bool) async -> CallIdentity {
        guard let credentials else { return .unknown }
        return requiresAuthentication ? await CallIdentity.of(credentials) : .anonymous
    }

    /// Lets the cache run this call again in the background (a stale-while-revalidate refresh).
    private func backgroundRevalidation(of built: BuiltRequest, context: RequestContext) -> BackgroundRevalidation {
        BackgroundRevalidation { [self] policy, completion in
            // A context of its own: the caller's report must not count the background attempt.
            let background = RequestContext(
                endpoint: context.endpoint, cachePolicy: policy, isIdempotent: context.isIdempotent, timeout: context.timeout,
                requiresAuthentication: context.requiresAuthentication, maximumBodySize: context.maximumBodySize,
                identity: context.identity, pathTemplate: context.pathTemplate, telemetry: context.telemetry
            )
            backgroundWork.start {
                defer { completion() }
                _ = try? await perform(built, context: background)
            }
        }
    }

    /// The shared outcome of identical GETs: a function of its own so the plain path's frame stays small.
    @inline(never)
    private func joinOrPerform(_ built: BuiltRequest, context: RequestContext, key: InFlightCalls.Key) async throws -> InFlightCalls.Outcome {
        try await inFlight.run(key, telemetry: context.telemetry, operationName: context.endpoint) { try await perform(built, context: context) }
    }

    /// The key identical GETs share, or nil when this call must not be coalesced.
    @inline(never)
    private func coalescingKey(_ call: PreparedCall, identity: CallIdentity) -> InFlightCalls.Key? {
        let head = call.built.head
        guard head.method == .get, call.policy != .withoutCache, configuration.coalescesIdenticalRequests else { return nil }
        return InFlightCalls.Key(
            head: head, policy: call.policy, identity: identity, requiresAuthentication: call.context.requiresAuthentication,
            timeout: call.context.timeout
        )
    }

    /// The response checked: not cancelled meanwhile, an acceptable status, accepted by the validator.
    @inline(never)
    private func finish(_ outcome: InFlightCalls.Outcome, _ call: PreparedCall) throws(CourierError) -> ValidatedResponse {
        // A call cancelled while the last bytes arrived must not report a success later.
        if Task.isCancelled { throw CourierError(.cancelled, detail: "The call was cancelled") }
        try validate(outcome.head, body: outcome.body, endpoint: call.context.endpoint, source: outcome.source)
        return ValidatedResponse(
            head: outcome.head, body: outcome.body, request: call.summary, source: outcome.source, attempts: outcome.attempts,
            started: call.started
        )
    }

    /// Any failure as a ``CourierError`` naming the endpoint and the request.
    @inline(never)
    private func failure(_ error: any Error, _ call: PreparedCall) -> CourierError {
        CourierError.from(transportError: error).filling(endpoint: call.context.endpoint, request: call.summary)
    }

    /// Runs the middleware chain (once per redirect hop) and reads the body, with the request context set.
    private func perform(_ built: BuiltRequest, context: RequestContext) async throws -> InFlightCalls.Outcome {
        try await RequestContext.$current.withValue(context) {
            let requestBody = built.body.map { HTTPBody($0) }
            let (head, body) = try await followingRedirects(built.head, body: requestBody, operationID: context.endpoint)
            // The edge: the one place a decoded call's body is gathered, within the size limit.
            let data = try await collectBody(body, limit: configuration.maximumBodySize)
            return InFlightCalls.Outcome(head: head, body: data, source: context.report.source, attempts: context.report.attempts)
        }
    }

    /// The chain for the request and, while the answer is a redirect, for each hop (see ``RedirectMiddleware``).
    private func followingRedirects(_ request: HTTPRequest, body: HTTPBody?, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        guard configuration.maximumRedirects > 0 else {
            return try await runChain(request, body: body, baseURL: baseURL, operationID: operationID)
        }
        let redirects = RedirectMiddleware(maximumRedirects: configuration.maximumRedirects, redaction: configuration.redaction)
        return try await redirects.intercept(request, body: body, baseURL: baseURL, operationID: operationID) { request, body, baseURL in
            try await runChain(request, body: body, baseURL: baseURL, operationID: operationID)
        }
    }

    /// Calls middleware `index` (or the terminal when past the last one) with a `next` that calls `index + 1`.
    private func runChain(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String, index: Int = 0
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let index = firstActive(from: index)
        guard index < middlewares.count else {
            return try await terminal(request, body: body, baseURL: baseURL, operationID: operationID)
        }
        return try await middlewares[index].intercept(request, body: body, baseURL: baseURL, operationID: operationID) {
            request, body, baseURL in
            try await runChain(request, body: body, baseURL: baseURL, operationID: operationID, index: index + 1)
        }
    }

    /// The index of the first middleware from `index` on with work to do for this call (see ``IdleMiddleware``).
    private func firstActive(from index: Int) -> Int {
        guard let context = RequestContext.current else { return index }
        var index = index
        while index < middlewares.count, let idle = middlewares[index] as? any IdleMiddleware, idle.isIdle(in: context) {
            index += 1
        }
        return index
    }

    /// The end of the chain: one attempt through the transport.
    ///
    /// A ``TimeoutEnforcingTransport`` bounds the attempt itself and its body streams on; any other
    /// transport is bounded here, its body read within the timeout.
    private func terminal(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        let context = RequestContext.current
        context?.report.recordAttempt()
        let transport = self.transport
        do {
            if transport is any TimeoutEnforcingTransport {
                return try await transport.send(request, body: body, baseURL: baseURL, operationID: operationID)
            }
            let limit = configuration.maximumBodySize
            let deadline = Deadline(timeout: context?.timeout ?? configuration.timeout)
            let (head, data) = try await deadline.bound {
                let (head, responseBody) = try await transport.send(request, body: body, baseURL: baseURL, operationID: operationID)
                return (head, try await collectBody(responseBody, limit: limit))
            }
            return (head, HTTPBody(data))
        } catch {
            throw attemptFailure(error, request: request, baseURL: baseURL)
        }
    }

    /// A failed attempt as a ``CourierError`` with the request as sent (a middleware may have changed it).
    @inline(never)
    private func attemptFailure(_ error: any Error, request: HTTPRequest, baseURL: URL) -> CourierError {
        var failure = CourierError.from(transportError: error)
        failure.request = RequestSummary(method: request.method, baseURL: baseURL, path: request.path, redaction: configuration.redaction)
        return failure
    }
}
