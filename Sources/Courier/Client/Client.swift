import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Sends endpoints to one backend: builds the request, runs the middleware chain and the transport,
/// validates the response and decodes it.
///
/// A client is a small `Sendable` value: make one per backend (API, auth, analytics) and hand it to
/// the services that use it.
///
/// ```swift
/// let client = Client(baseURL: URL(string: "https://api.example.com")!)
/// let friends = try await client.send(Friends(userID: 42))
/// ```
///
/// Middlewares run in array order: the first one sees the request first and the response last.
public struct Client: Sendable {
    /// The URL every endpoint path is relative to.
    public var baseURL: URL
    /// What sends requests over the network.
    public var transport: any ClientTransport {
        didSet { bufferingTransport = transport as? any BufferingTransport }
    }
    /// ``transport`` when it delivers whole responses itself; kept so a call does not cast it.
    private var bufferingTransport: (any BufferingTransport)?
    /// The middleware chain, outermost first.
    public var middlewares: [any ClientMiddleware]
    /// Headers, query items, coders, limits, timeout and policies.
    public var configuration: Configuration
    /// Identical GETs in flight, shared by copies of this client.
    let inFlight = InFlightCalls()

    /// Creates a client for a base URL.
    /// - Parameters:
    ///   - baseURL: The URL endpoint paths are relative to (may include a path prefix such as `/v1`).
    ///   - transport: The transport; defaults to URLSession.
    ///   - middlewares: The middleware chain, outermost first.
    ///   - configuration: Everything else; change it in the trailing closure.
    public init(
        baseURL: URL,
        transport: any ClientTransport = URLSessionTransport(),
        middlewares: [any ClientMiddleware] = [],
        configure: (inout Configuration) -> Void = { _ in }
    ) {
        self.baseURL = baseURL
        self.transport = transport
        self.bufferingTransport = transport as? any BufferingTransport
        self.middlewares = middlewares
        var configuration = Configuration()
        configure(&configuration)
        self.configuration = configuration
    }

    /// Creates a client for a server environment (debug, staging, release…).
    public init(
        environment: ServerEnvironment,
        transport: any ClientTransport = URLSessionTransport(),
        middlewares: [any ClientMiddleware] = [],
        configure: (inout Configuration) -> Void = { _ in }
    ) {
        self.init(baseURL: environment.baseURL, transport: transport, middlewares: middlewares, configure: configure)
    }

    /// Sends an endpoint and returns its decoded value.
    /// - Throws: ``CourierError`` for every failure, including cancellation.
    @inlinable
    public func send<E: Endpoint>(_ endpoint: E, cachePolicy: CachePolicy? = nil) async throws(CourierError) -> E.Response {
        try await response(for: endpoint, cachePolicy: cachePolicy).value
    }

    /// Sends an endpoint and returns the decoded value with the response's status, headers, source and timing.
    /// - Throws: ``CourierError`` for every failure, including cancellation.
    @inlinable
    public func response<E: Endpoint>(
        for endpoint: E,
        cachePolicy: CachePolicy? = nil
    ) async throws(CourierError) -> Response<E.Response> {
        let policy = cachePolicy ?? endpoint.cachePolicy ?? configuration.cachePolicy
        return try await exchange(endpoint, policy: policy).response
    }

    /// One full exchange: the generic shell around ``run(_:policy:)``, which reads the endpoint and
    /// decodes the body. Returns the raw body too (streams compare it).
    @inlinable
    func exchange<E: Endpoint>(_ endpoint: E, policy: CachePolicy) async throws(CourierError) -> (response: Response<E.Response>, body: Data) {
        let validated = try await run(EndpointCall(endpoint), policy: policy)
        return try decode(validated, for: endpoint)
    }

    /// The endpoint's value from a validated response, with the response's metadata.
    ///
    /// Synchronous and not inlined into ``exchange(_:policy:)`` so that decoding's temporaries stay
    /// on the thread's stack, not in the call's async frame.
    @inlinable @inline(never)
    func decode<E: Endpoint>(_ validated: ValidatedResponse, for endpoint: E) throws(CourierError) -> (response: Response<E.Response>, body: Data) {
        let value: E.Response
        do {
            value = try endpoint.decode(validated.body, context: DecodingContext(decoder: configuration.decoder, response: validated.head))
        } catch {
            throw decodingFailure(error, endpoint: endpoint.name, response: validated)
        }
        let response = Response(
            value: value,
            head: validated.head,
            request: validated.request,
            source: validated.source,
            duration: ContinuousClock.now - validated.started,
            attempts: validated.attempts,
            bodySize: validated.body.count
        )
        return (response, validated.body)
    }

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
