import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A client's chain folded once, when the client is made or its middlewares, configuration or
/// transport change, into one function: the client's own steps (redirects, coalescing), then the
/// app's middlewares, then the end that sends each attempt through the transport. A call runs it;
/// no step is looked up or wrapped per call.
struct CallChain: Sendable {
    /// The folded chain, outermost step first.
    let run: ChainNext

    /// Folds `middlewares` (behind the client's own steps) around `end`. An app's plain
    /// `ClientMiddleware` is adapted here, once.
    init(_ middlewares: [any ClientMiddleware], _ configuration: Client.Configuration, coalescing: CoalescingMiddleware, end: ChainEnd) {
        var steps: [any ClientMiddleware] = []
        steps.reserveCapacity(middlewares.count + 2)
        // An app that lists a RedirectMiddleware of its own (a list shared with a generated client)
        // chooses where and how redirects are followed: the client adds none of its own.
        if configuration.maximumRedirects > 0, !middlewares.contains(where: { $0 is RedirectMiddleware }) {
            // First: each redirect hop runs the rest of the chain.
            steps.append(RedirectMiddleware(
                maximumRedirects: configuration.maximumRedirects, redaction: configuration.redaction,
                allowsInsecureRedirects: configuration.allowsInsecureRedirects))
        }
        if configuration.coalescesIdenticalRequests { steps.append(coalescing) }
        steps.append(contentsOf: middlewares)
        var next: ChainNext = { request, body, baseURL, context in try await end.answer(request, body: body, baseURL: baseURL, context: context) }
        for step in steps.reversed() {
            let inner = next
            if let step = step as? any CourierMiddleware {
                next = { request, body, baseURL, context in
                    try await step.intercept(request, body: body, baseURL: baseURL, context: context, next: inner)
                }
            } else {
                next = { request, body, baseURL, context in
                    try await Self.foreign(step, request, body: body, baseURL: baseURL, context: context, next: inner)
                }
            }
        }
        run = next
    }
}

/// The end of a client's chain: what happens to a request no step answered.
struct ChainEnd: Sendable {
    let transport: any ClientTransport
    /// The transport as a ``CourierTransport``, if it is one (looked up once, not per call).
    let courierTransport: (any CourierTransport)?
    /// The client's timeout, for a transport outside a Courier client's attempt.
    let timeout: Duration
    /// The client's body limit, within which the body of a plain `ClientTransport` is read.
    let maximumBodySize: Int
    let redaction: Redaction

    init(transport: any ClientTransport, configuration: Client.Configuration) {
        self.transport = transport
        courierTransport = transport as? any CourierTransport
        timeout = configuration.timeout
        maximumBodySize = configuration.maximumBodySize
        redaction = configuration.redaction
    }

    /// A GET that may use only the cache fails as a miss; any other request leaves without the
    /// secrets that must not leave the call's origin, and goes through the transport.
    func answer(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, context: RequestContext) async throws -> Answer {
        if context.cachePolicy.mode == .cacheOnly, request.method == .get {
            return Answer(response: HTTPResponse(status: .gatewayTimeout), body: HTTPBody())
        }
        let request = withoutSecrets(request, ifLeaving: baseURL, context: context)
        // Whichever step added them, credentials keep the response out of what is shared (see
        // `Answer.credentials`); by the call's list, which a cache above may have added its own to.
        let credentials = SentCredentials(request.headerFields, redaction: context.facts.redaction)
        do {
            var answer = if let download = context.facts.download {
                try await download.attempt(request) { request in try await send(request, body: body, baseURL: baseURL, context: context) }
            } else if let transport = courierTransport {
                // Most calls: a Courier transport bounds the attempt itself.
                try await transport.send(request, body: body, baseURL: baseURL, attempt: TransportAttempt(context, fallbackTimeout: timeout))
            } else {
                try await send(request, body: body, baseURL: baseURL, context: context)
            }
            (answer.source, answer.attempts, answer.credentials) = (.network, 1, credentials)
            return answer
        } catch {
            // The request as sent: a middleware may have changed it.
            var failure = CourierError.from(transportError: error)
            failure.request = RequestSummary(method: request.method, baseURL: baseURL, path: request.path, redaction: redaction)
            throw failure
        }
    }

    /// The request without its credential and secret fields when it goes to another origin than the
    /// call's (a redirect hop, or any hop after one that left), whichever middleware added them.
    private func withoutSecrets(_ request: HTTPRequest, ifLeaving hopBaseURL: URL, context: RequestContext) -> HTTPRequest {
        let origin = context.facts.origin ?? hopBaseURL
        let leaves = context.isCrossOriginHop
            || hopBaseURL != origin && Origin(hopBaseURL).map { $0 != Origin(origin) } ?? true
        guard leaves else { return request }
        var request = request
        request.headerFields = request.headerFields.filter { !redaction.isCredential(header: $0.name) }
        return request
    }

    /// The transport's answer to one request. A ``CourierTransport`` is handed the attempt and
    /// bounds it itself, its body streaming on; any other transport (which may read the context as
    /// ``RequestContext/current``) is bounded here, its body read within the timeout.
    private func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, context: RequestContext) async throws -> Answer {
        if let transport = courierTransport {
            let attempt = TransportAttempt(context, fallbackTimeout: timeout)
            return try await transport.send(request, body: body, baseURL: baseURL, attempt: attempt)
        }
        let (transport, limit) = (transport, maximumBodySize)
        let deadline = Deadline(timeout: context.timeout)
        let (head, data) = try await RequestContext.$current.withValue(context) {
            try await deadline.bound {
                let (head, responseBody) = try await transport.send(request, body: body, baseURL: baseURL, operationID: context.endpoint)
                return (head, try await collectResponseBody(responseBody, of: head, limit: limit))
            }
        }
        return Answer(response: head, whole: data)
    }
}
