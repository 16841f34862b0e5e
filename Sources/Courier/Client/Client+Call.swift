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
            maximumBodySize: configuration.maximumBodySize
        )
        let summary = RequestSummary(
            method: built.head.method, baseURL: baseURL, path: built.head.path, redaction: configuration.redaction
        )
        return PreparedCall(built: built, context: context, summary: summary, policy: policy, started: started)
    }

    /// Sends the call, or joins an identical GET already in flight when the client coalesces.
    private func outcome(of call: PreparedCall) async throws -> InFlightCalls.Outcome {
        guard let key = coalescingKey(call) else { return try await perform(call.built, context: call.context) }
        return try await joinOrPerform(call, key: key)
    }

    /// The shared outcome of identical GETs: a function of its own so the plain path's frame stays small.
    @inline(never)
    private func joinOrPerform(_ call: PreparedCall, key: InFlightCalls.Key) async throws -> InFlightCalls.Outcome {
        try await inFlight.run(key) { try await perform(call.built, context: call.context) }
    }

    /// The key identical GETs share, or nil when this call must not be coalesced.
    @inline(never)
    private func coalescingKey(_ call: PreparedCall) -> InFlightCalls.Key? {
        let head = call.built.head
        guard head.method == .get, call.policy != .withoutCache, configuration.coalescesIdenticalRequests else { return nil }
        return InFlightCalls.Key(
            head: head, policy: call.policy, requiresAuthentication: call.context.requiresAuthentication, timeout: call.context.timeout
        )
    }

    /// The response checked: not cancelled meanwhile, an acceptable status, accepted by the validator.
    @inline(never)
    private func finish(_ outcome: InFlightCalls.Outcome, _ call: PreparedCall) throws(CourierError) -> ValidatedResponse {
        // A call cancelled while the last bytes arrived must not report a success later.
        if Task.isCancelled { throw CourierError(.cancelled, detail: "The call was cancelled") }
        try validate(outcome.head, body: outcome.body, endpoint: call.context.endpoint)
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

    /// Runs the middleware chain and reads the body, with the request context set.
    private func perform(_ built: BuiltRequest, context: RequestContext) async throws -> InFlightCalls.Outcome {
        try await RequestContext.$current.withValue(context) {
            let head: HTTPResponse
            let data: Data
            if middlewares.isEmpty {
                // No middleware needs a replayable body: keep the terminal's bytes as they are.
                (head, data) = try await attempt(built.head, body: .bytes(built.body), operationID: context.endpoint)
            } else {
                let requestBody = built.body.map { HTTPBody($0) }
                let (chainHead, body) = try await runChain(built.head, body: requestBody, operationID: context.endpoint)
                head = chainHead
                // The terminal already buffered this body: its bytes are taken instead of collected again.
                data = try await context.report.bytes(of: body, limit: configuration.maximumBodySize)
            }
            return InFlightCalls.Outcome(head: head, body: data, source: context.report.source, attempts: context.report.attempts)
        }
    }

    /// Calls middleware `index` (or the terminal when past the last one) with a `next` that calls `index + 1`.
    private func runChain(_ request: HTTPRequest, body: HTTPBody?, operationID: String, index: Int = 0) async throws -> (HTTPResponse, HTTPBody?) {
        guard index < middlewares.count else {
            return try await terminal(request, body: body, operationID: operationID)
        }
        return try await middlewares[index].intercept(request, body: body, baseURL: baseURL, operationID: operationID) {
            request, body, _ in
            try await runChain(request, body: body, operationID: operationID, index: index + 1)
        }
    }

    /// The end of the chain: one attempt, its body handed back replayable (every middleware may read it).
    private func terminal(_ request: HTTPRequest, body: HTTPBody?, operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        let (head, data) = try await attempt(request, body: .stream(body), operationID: operationID)
        let buffered = HTTPBody(data)
        RequestContext.current?.report.setBuffered(buffered, bytes: data)
        return (head, buffered)
    }

    /// One attempt through the transport, its body read within the limit and the timeout.
    ///
    /// The body is buffered here so that the timeout covers the whole response, not only its head.
    private func attempt(_ request: HTTPRequest, body: OutgoingBody, operationID: String) async throws -> (HTTPResponse, Data) {
        let context = RequestContext.current
        context?.report.recordAttempt()
        do {
            // A transport that reads whole bodies within the context's deadline needs no timer here.
            if context != nil, let bufferingTransport {
                return try await bufferingTransport.exchange(request, body: body.bytes(), baseURL: baseURL, operationID: operationID)
            }
            return try await sendWithinTimeout(request, body: body.stream, operationID: operationID, timeout: context?.timeout)
        } catch {
            throw attemptFailure(error, request: request)
        }
    }

    /// A plain transport's response with its body read, both within the timeout.
    private func sendWithinTimeout(_ request: HTTPRequest, body: HTTPBody?, operationID: String, timeout: Duration?) async throws -> (HTTPResponse, Data) {
        let limit = configuration.maximumBodySize
        let transport = self.transport
        let baseURL = self.baseURL
        return try await withTimeout(timeout ?? configuration.timeout) {
            let (head, responseBody) = try await transport.send(request, body: body, baseURL: baseURL, operationID: operationID)
            return (head, try await collectBody(responseBody, limit: limit))
        }
    }

    /// A failed attempt as a ``CourierError`` with the request as sent (a middleware may have changed it).
    @inline(never)
    private func attemptFailure(_ error: any Error, request: HTTPRequest) -> CourierError {
        var failure = CourierError.from(transportError: error)
        failure.request = RequestSummary(method: request.method, baseURL: baseURL, path: request.path, redaction: configuration.redaction)
        return failure
    }
}

/// A request body as the client holds it: the bytes it encoded, or the stream a middleware passed on.
///
/// Each kind of transport gets its own form without a round trip: a ``BufferingTransport`` the
/// bytes, any other transport the stream (a middleware's streaming body stays a stream).
private enum OutgoingBody: Sendable {
    case bytes(Data?)
    case stream(HTTPBody?)

    /// The whole body in memory.
    func bytes() async throws -> Data? {
        switch self {
        case .bytes(let data): data
        case .stream(let body): if let body { try await Data(collecting: body, upTo: .max) } else { nil }
        }
    }

    /// The body as an `HTTPBody`.
    var stream: HTTPBody? {
        switch self {
        case .bytes(let data): data.map { HTTPBody($0) }
        case .stream(let body): body
        }
    }
}
