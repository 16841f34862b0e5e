import Foundation
import HTTPTypes
import OpenAPIRuntime

// The bridge to swift-openapi-runtime, in one place. Its `ClientMiddleware` and `ClientTransport`
// hand a step only the request and a bare `next`: no call context goes down and no answer (where
// the response came from, how many attempts, what credentials left) comes back up. Inside a Courier
// client, steps pass a `RequestContext` as a value and return an `Answer`; everything below exists
// only so the same steps also work in a generated client's chain, and an app's own
// `ClientMiddleware` works in a Courier client: the task-local `RequestContext.current`, the
// context that only carries marks when the app set none, the report a context carries up, and the
// adapters of each seam.

extension RequestContext {
    /// The context of the call in progress, where it meets code of the app's: inside a Courier
    /// client, around the app's own middlewares and transport; in a generated client, the one the
    /// app set around the call, if any.
    @TaskLocal public static var current: RequestContext?

    /// The context of the call in progress as its caller described it: nil outside a Courier
    /// client, even where a middleware set one to carry its marks (see ``CallFacts/carriesMarksOnly``).
    package static var described: RequestContext? { current?.described }

    /// This context, or nil when it only carries marks (see ``CallFacts/carriesMarksOnly``).
    package var described: RequestContext? { facts.carriesMarksOnly ? nil : self }

    /// The context of a call that has none (a generated client's, without one set by the app): it
    /// carries only what a middleware marks on it for the steps below.
    package static func carryingMarksOnly(operationID: String) -> RequestContext {
        var context = RequestContext(endpoint: operationID, cachePolicy: .withoutCache, isIdempotent: false, timeout: Client.Configuration.defaultTimeout)
        context.facts.carriesMarksOnly = true
        return context
    }

    /// Where a call's response came from, as the steps of a generated client's chain record it
    /// (see ``CallFacts/report``); copies of a context share one report.
    package struct Report: Sendable {
        private let state = Locked(State())

        struct State {
            var source: ResponseSource = .network
            var attempts = 0
            /// Unknown until a Courier step or transport below records what it sent.
            var credentials = SentCredentials.unknown
        }

        package init() {}

        /// Where the response came from: the network unless a cache answered.
        package var source: ResponseSource { state.withLock { $0.source } }

        /// How many times the transport was called.
        package var attempts: Int { state.withLock { $0.attempts } }

        /// Records what a step's `Answer` says, for a generated client's caller, for the Courier
        /// step above it there, and for an app's own `ClientMiddleware` that reads
        /// ``RequestContext/current`` after its `next`.
        package func record(_ answer: Answer) {
            state.withLock { $0 = State(source: answer.source, attempts: answer.attempts, credentials: answer.credentials) }
        }

        /// `response` with what the steps below recorded.
        package func answer(response: HTTPResponse, body: HTTPBody?) -> Answer {
            let state = state.withLock { $0 }
            return Answer(
                response: response, body: body, source: state.source, attempts: state.attempts, credentials: state.credentials)
        }
    }
}

/// Where a generated client's call got its response, and how many attempts it took: what
/// ``RequestContext/reporting(_:)`` returns beside the call's value.
public struct CallReport: Sendable, Hashable {
    /// Where the response came from: the network unless a cache answered.
    public var source: ResponseSource
    /// How many times the transport was called.
    public var attempts: Int
}

extension RequestContext {
    /// Runs one call of a generated client, or an app middleware's `next` in any chain, and returns
    /// its value with its report.
    ///
    /// ```swift
    /// let (feed, report) = try await RequestContext.reporting { try await api.getFeed() }
    /// if report.source == .cache { … }
    /// ```
    ///
    /// The call runs in the ``current`` context (or one that carries only marks, when there is
    /// none) with a report of its own: calls made at once each learn their own. Make one call in
    /// the closure; of several, the report tells of the last to answer.
    public static func reporting<T>(_ call: () async throws -> T) async rethrows -> (T, CallReport) {
        var context = current ?? .carryingMarksOnly(operationID: "")
        let report = Report()
        context.facts.report = report
        let value = try await $current.withValue(context) { try await call() }
        return (value, CallReport(source: report.source, attempts: report.attempts))
    }
}

extension CourierMiddleware {
    /// The middleware in a chain of swift-openapi-runtime's (a generated client), where `next`
    /// returns a bare response: the step's context is ``RequestContext/current``, or one that only
    /// carries marks when the app set none, and the steps below get a copy of the one it passes on.
    /// The answer of the steps below comes back through a report of this step's own, made for this
    /// request, which the Courier step below records its answer into (so two calls made at once
    /// under one context never read each other's); the credentials of the request it passes on
    /// count too. The step records its own answer into the report of the step above it.
    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let outer = RequestContext.current
        var context = outer ?? .carryingMarksOnly(operationID: operationID)
        if context.facts.carriesMarksOnly { context.endpoint = operationID }
        // This chain's `next` ends with the call: no step may keep it for later.
        context.facts.background = nil
        let answer = try await withoutActuallyEscaping(next) { next in
            try await intercept(request, body: body, baseURL: baseURL, context: context) { request, body, baseURL, below in
                // A report of this request's own: another call under the same context has its own.
                var below = below
                let report = RequestContext.Report()
                below.facts.report = report
                let (response, responseBody) = try await RequestContext.$current.withValue(below) { try await next(request, body, baseURL) }
                // What the steps below recorded; nothing when no Courier step or transport is there.
                var answer = report.answer(response: response, body: responseBody)
                answer.credentials = answer.credentials.and(SentCredentials(request.headerFields, redaction: below.facts.redaction))
                return answer
            }
        }
        outer?.facts.report?.record(answer)
        return (answer.response, answer.body)
    }
}

extension CourierTransport {
    /// One request of a generated client's chain, which hands a transport no attempt: the attempt
    /// of ``RequestContext/current`` (the defaults when there is none), and what left recorded in
    /// its report for the Courier step above. A cache above files a response by the credentials it
    /// was sent with, whichever middleware between them added those.
    package func sendOutsideClient(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL) async throws -> (HTTPResponse, HTTPBody?) {
        let context = RequestContext.current
        var answer = try await send(request, body: body, baseURL: baseURL, attempt: TransportAttempt(context?.described))
        if let context {
            answer.attempts = 1
            answer.credentials = SentCredentials(request.headerFields, redaction: context.facts.redaction)
            context.facts.report?.record(answer)
        }
        return (answer.response, answer.body)
    }
}

extension CallChain {
    /// An app's own `ClientMiddleware` as a step: it reads the context as ``RequestContext/current``
    /// and its report, and the answer of the steps below comes back beside the response it returns
    /// (held for this call only, since `next` returns a bare response).
    static func foreign(
        _ step: any ClientMiddleware, _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, context: RequestContext, next: @escaping ChainNext
    ) async throws -> Answer {
        let below = Locked<Answer?>(nil)
        let (response, responseBody) = try await RequestContext.$current.withValue(context) {
            try await step.intercept(request, body: body, baseURL: baseURL, operationID: context.endpoint) { request, body, baseURL in
                let current = RequestContext.current ?? context
                var answer = try await next(request, body, baseURL, current)
                below.withLock { earlier in
                    answer.attempts += earlier?.attempts ?? 0
                    earlier = answer
                }
                // For the step's own `RequestContext.reporting(_:)` around its `next`.
                current.facts.report?.record(answer)
                return (answer.response, answer.body)
            }
        }
        var answer = below.withLock { $0 } ?? Answer(response: response, body: responseBody)
        (answer.response, answer.body) = (response, responseBody)
        return answer
    }
}
