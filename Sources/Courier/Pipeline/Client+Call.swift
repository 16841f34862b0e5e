import Foundation
import HTTPTypes
import OpenAPIRuntime

/// The non-generic core of every call, in the order it runs: build the request, run the chain
/// (redirects, coalescing, then the app's middlewares), send each attempt through the transport at
/// its end, gather the body at the edge, validate. Decoding and the report are the generic
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
        prepared.context.uploadProgress = uploadProgress
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
        let summary = RequestSummary(
            method: built.head.method, baseURL: baseURL, path: built.head.path, redaction: configuration.redaction
        )
        return PreparedCall(built: built, context: context, summary: summary, started: started)
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

    /// The call's context completed with who the call is for, then the middleware chain (once per
    /// redirect hop), then the edge, the one place a body is read whole: gathered within the size
    /// limit for a decoded call or an error status, written to its file for a download, handed on
    /// as it is for a stream. The context is also ``RequestContext/current`` meanwhile, for the
    /// app's own code the chain runs.
    private func runChain(_ call: PreparedCall) async throws -> CallOutcome {
        var context = call.context
        // Who the call is for is read from the credential provider before any middleware runs, so
        // no order of middlewares can file one user's response under another.
        if let credentials {
            context.identity = context.requiresAuthentication ? await CallIdentity.of(credentials) : .anonymous
        }
        // The links run in a copy of this client without the background work, which a step may
        // keep running them after the call returned: so the work never keeps its own client alive.
        context.background = backgroundWork
        var runner = self
        runner.backgroundWork = nil
        return try await RequestContext.$current.withValue(context) { [context] in
            let requestBody = try await call.built.body?.httpBody().reportingProgress(to: context.uploadProgress)
            let answer = try await runner.link(0, call.built.head, body: requestBody, baseURL: baseURL, context: context)
            let (head, body) = (answer.response, answer.body)
            guard head.status.kind == .successful, call.destination.isTransfer else {
                return CallOutcome(head: head, answer: answer, body: try await collectAnswer(body, of: head, limit: configuration.maximumBodySize))
            }
            var outcome = CallOutcome(head: head, answer: answer)
            switch call.destination {
            case .memory: break
            case .file(let download):
                // Written by the attempt that received it (see `attempt`), unless a middleware answered.
                if let body { try await download.receive(head, body: body) }
                outcome.bodySize = try await download.complete()
            case .caller: outcome.stream = body ?? HTTPBody()
            }
            return outcome
        }
    }

    /// Calls link `index` of the call's chain (or sends past the last one) with a `next` that calls
    /// `index + 1`. The chain is the client's own links, then the app's middlewares (see ``chain``).
    private func link(_ index: Int, _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, context: RequestContext) async throws -> Answer {
        guard index < chain.count else {
            // No step answered from a cache: a GET that may use only the cache fails as a miss.
            if context.cachePolicy.mode == .cacheOnly, request.method == .get {
                return Answer(response: HTTPResponse(status: .gatewayTimeout), body: HTTPBody())
            }
            let request = withoutSecrets(request, ifLeaving: baseURL, context: context)
            // Credentials an app's own middleware added behind the cache keep the response out of the shared partition.
            context.anonymousClaim?.note(request, redaction: configuration.redaction)
            return try await attempt(request, body: body, baseURL: baseURL, context: context)
        }
        switch chain[index] {
        case .courier(let step):
            return try await step.intercept(request, body: body, baseURL: baseURL, context: context) { request, body, baseURL, context in
                try await link(index + 1, request, body: body, baseURL: baseURL, context: context)
            }
        case .foreign(let step):
            return try await foreignLink(index, step, request, body: body, baseURL: baseURL, context: context)
        }
    }

    /// An app's own `ClientMiddleware` as link `index`: it reads the context as
    /// ``RequestContext/current`` and its report, and the answer of the links below comes back
    /// beside the response it returns.
    private func foreignLink(
        _ index: Int, _ step: any ClientMiddleware, _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, context: RequestContext
    ) async throws -> Answer {
        let below = Locked<Answer?>(nil)
        let (response, responseBody) = try await RequestContext.$current.withValue(context) {
            try await step.intercept(request, body: body, baseURL: baseURL, operationID: context.endpoint) { request, body, baseURL in
                var answer = try await link(index + 1, request, body: body, baseURL: baseURL, context: RequestContext.current ?? context)
                below.withLock { earlier in
                    answer.attempts += earlier?.attempts ?? 0
                    earlier = answer
                }
                context.report.record(answer)
                return (answer.response, answer.body)
            }
        }
        var answer = below.withLock { $0 } ?? Answer(response: response, body: responseBody)
        (answer.response, answer.body) = (response, responseBody)
        return answer
    }

    /// The links of a client's chain, outermost first: a ``RedirectMiddleware`` (each hop runs the
    /// rest of the chain), a ``CoalescingMiddleware`` (unless turned off), then the app's middlewares.
    static func links(_ middlewares: [any ClientMiddleware], _ configuration: Configuration, _ coalescing: CoalescingMiddleware) -> [ChainLink] {
        var chain: [ChainLink] = []
        chain.reserveCapacity(middlewares.count + 2)
        if configuration.maximumRedirects > 0 {
            chain.append(.courier(RedirectMiddleware(
                maximumRedirects: configuration.maximumRedirects, redaction: configuration.redaction,
                allowsInsecureRedirects: configuration.allowsInsecureRedirects)))
        }
        if configuration.coalescesIdenticalRequests { chain.append(.courier(coalescing)) }
        chain.append(contentsOf: middlewares.map(ChainLink.init))
        return chain
    }

    /// The request without its credential and secret fields when it goes to another origin than the
    /// call's (a redirect hop, or any hop after one that left), whichever middleware added them.
    private func withoutSecrets(_ request: HTTPRequest, ifLeaving hopBaseURL: URL, context: RequestContext) -> HTTPRequest {
        let leaves = context.isCrossOriginHop
            || hopBaseURL != baseURL && Origin(hopBaseURL).map { $0 != Origin(baseURL) } ?? true
        guard leaves else { return request }
        var request = request
        request.headerFields = request.headerFields.filter { !configuration.redaction.isCredential(header: $0.name) }
        return request
    }

    // MARK: 3. Send

    /// One attempt through the transport, at the end of the chain.
    private func attempt(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, context: RequestContext) async throws -> Answer {
        do {
            let (response, responseBody) = if let download = context.download {
                try await download.attempt(request) { request in try await throughTransport(request, body: body, baseURL: baseURL, context: context) }
            } else {
                try await throughTransport(request, body: body, baseURL: baseURL, context: context)
            }
            return Answer(response: response, body: responseBody, source: .network, attempts: 1)
        } catch {
            // The request as sent: a middleware may have changed it.
            var failure = CourierError.from(transportError: error)
            failure.request = RequestSummary(method: request.method, baseURL: baseURL, path: request.path, redaction: configuration.redaction)
            throw failure
        }
    }

    /// The transport's answer to one request. A ``CourierTransport`` is handed the attempt and
    /// bounds it itself, its body streaming on; any other transport (which may read the context as
    /// ``RequestContext/current``) is bounded here, its body read within the timeout.
    private func throughTransport(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, context: RequestContext) async throws -> (HTTPResponse, HTTPBody?) {
        let transport = self.transport
        if let transport = transport as? any CourierTransport {
            let attempt = TransportAttempt(context, fallbackTimeout: configuration.timeout)
            return try await transport.send(request, body: body, baseURL: baseURL, attempt: attempt)
        }
        let limit = configuration.maximumBodySize
        let deadline = Deadline(timeout: context.timeout)
        let (head, data) = try await RequestContext.$current.withValue(context) {
            try await deadline.bound {
                let (head, responseBody) = try await transport.send(request, body: body, baseURL: baseURL, operationID: context.endpoint)
                return (head, try await collectAnswer(responseBody, of: head, limit: limit))
            }
        }
        return (head, HTTPBody(data))
    }

    // MARK: 4. Validate

    /// The response checked: not cancelled meanwhile, an acceptable status, accepted by the validator.
    private func validated(_ outcome: CallOutcome, _ call: PreparedCall) throws(CourierError) -> ValidatedResponse {
        // A call cancelled while the last bytes arrived must not report a success later.
        if Task.isCancelled { throw CourierError(.cancelled, detail: "The call was cancelled") }
        let answer = outcome.answer
        try validate(
            outcome.head, body: outcome.body, endpoint: call.context.endpoint, source: answer.source,
            notRetriedBecause: answer.notRetriedBecause, checksContent: !call.destination.isTransfer)
        return ValidatedResponse(
            head: outcome.head, body: outcome.body, request: call.summary, source: answer.source, attempts: answer.attempts,
            started: call.started, bodySize: outcome.bodySize, stream: outcome.stream
        )
    }
}
