import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Sends a request again when an attempt fails in a way a ``RetryPolicy`` deems temporary.
///
/// Waits on an injected clock, so tests drive time with a manual clock instead of sleeping. Each
/// retry runs the rest of the chain again: place this middleware *before* (outside)
/// ``CredentialsMiddleware`` so that every attempt carries the current credentials.
///
/// - A request body that can be iterated only once (`HTTPBody.iterationBehavior == .single`) is
///   never retried: it cannot be sent a second time. A failure or a status that would have been
///   retried says so in the ``CourierError/detail`` of the call's error.
/// - A retry's per-attempt timeout is shortened so that the attempt ends by the policy's total deadline.
/// - Cancelling the call while it waits ends the wait at once with ``CourierError/Kind/cancelled``.
/// - When no retry follows, the last response is returned (for a status) or the last error thrown.
public struct RetryMiddleware: ClientMiddleware, CourierMiddleware {
    /// When to retry and how long to wait.
    let policy: RetryPolicy
    /// The clock the waits run on.
    let clock: any Clock<Duration>

    /// Creates the middleware.
    /// - Parameters:
    ///   - policy: When to retry and how long to wait; ``RetryPolicy/default`` unless given.
    ///   - clock: The clock to wait on; a manual clock in tests.
    public init(policy: RetryPolicy = .default, clock: any Clock<Duration> = ContinuousClock()) {
        self.policy = policy
        self.clock = clock
    }

    /// Runs the rest of the chain, again after a wait while the policy says so.
    /// - Parameters:
    ///   - request: The request.
    ///   - body: The request body; retried only when it can be iterated more than once.
    ///   - baseURL: The base URL.
    ///   - context: The call's context: whether the request may be sent twice, and the timeout a
    ///     retry shortens to end by the policy's total deadline.
    ///   - next: The rest of the chain.
    /// - Returns: The first answer the policy does not retry, with the attempts of every try.
    /// - Throws: The last attempt's error, or ``CourierError/Kind/cancelled`` when cancelled during a wait.
    package func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        context: RequestContext,
        next: @escaping ChainNext
    ) async throws -> Answer {
        // Outside a client (a context that only carries marks), the policy decides by method alone.
        let described = context.described
        let decide = { @Sendable (attempt: Int, outcome: Outcome, elapsed: Duration) -> RetryDecision in
            policy.decision(
                afterAttempt: attempt,
                method: request.method,
                isIdempotent: described?.isIdempotent,
                status: outcome.status,
                error: outcome.errorKind,
                retryAfter: outcome.status == nil ? nil : outcome.retryAfter,
                elapsed: elapsed,
                now: Date()
            )
        }
        guard policy.maximumAttempts > 1 else { return try await next(request, body, baseURL, context) }
        guard body?.iterationBehavior != .single else {
            // Say why an answer the policy would have retried was not: in a failure's detail, and
            // for a status in the error the client makes of it.
            var answer: Answer
            do {
                answer = try await next(request, body, baseURL, context)
            } catch {
                guard decide(1, .failure(error), .zero).delay != nil else { throw error }
                var explained = CourierError.from(transportError: error)
                explained.detail += " (not retried: \(Self.singleUseBody))"
                throw explained
            }
            if decide(1, .response(answer), .zero).delay != nil { answer.notRetriedBecause = Self.singleUseBody }
            return answer
        }
        let clock: any Clock<Duration> = self.clock
        return try await run(on: clock, context: context, attempt: { context in try await next(request, body, baseURL, context) }, decide: decide)
    }

    /// Why a request whose body can be read once is never retried.
    static let singleUseBody = "the request body is a stream that can be sent only once"

    /// The attempt loop, generic over the clock so its instants can be compared.
    private func run<C: Clock>(
        on clock: C,
        context: RequestContext,
        attempt send: (RequestContext) async throws -> Answer,
        decide: (Int, Outcome, Duration) -> RetryDecision
    ) async throws -> Answer where C.Duration == Duration {
        let start = clock.now
        let described = context.described
        var attempt = 1
        var attempts = 0
        while true {
            let outcome: Outcome
            do {
                let remaining = attempt == 1 ? nil : policy.totalDeadline - start.duration(to: clock.now)
                let answer = try await send(Self.attemptContext(context, remaining: remaining))
                attempts += answer.attempts
                outcome = .response(answer)
            } catch {
                attempts += 1
                outcome = .failure(error)
            }
            let decision = Task.isCancelled ? .stop(.cancelled) : decide(attempt, outcome, start.duration(to: clock.now))
            guard let delay = decision.delay else {
                var answer = try outcome.get()
                answer.attempts = attempts
                return answer
            }
            (described?.facts.telemetry ?? Telemetry()).count(
                MetricName.retries, [("courier.operation", described?.endpoint ?? ""), ("courier.retry.reason", outcome.reason)]
            )
            if delay > .zero {
                do {
                    try await clock.sleep(for: delay)
                } catch {
                    throw CourierError(.cancelled, detail: "The call was cancelled while waiting to retry", underlying: error)
                }
            }
            guard !Task.isCancelled else {
                throw CourierError(.cancelled, detail: "The call was cancelled while waiting to retry")
            }
            attempt += 1
        }
    }

    /// A retry's context: its per-attempt timeout shortened to the time left before the deadline.
    /// A context that only carries marks has no timeout of the call's to shorten.
    private static func attemptContext(_ context: RequestContext, remaining: Duration?) -> RequestContext {
        guard let remaining, !context.facts.carriesMarksOnly, remaining < context.timeout else { return context }
        var bounded = context
        bounded.timeout = max(remaining, .zero)
        return bounded
    }

    /// What one attempt produced.
    private enum Outcome {
        case response(Answer)
        case failure(any Error)

        var status: HTTPResponse.Status? {
            if case .response(let answer) = self { answer.response.status } else { nil }
        }

        var retryAfter: String? {
            if case .response(let answer) = self { answer.response.headerFields[.retryAfter] } else { nil }
        }

        /// Why the attempt is retried: its status code or its error's kind.
        var reason: String {
            switch self {
            case .response(let answer): String(answer.response.status.code)
            case .failure(let error): CourierError.from(transportError: error).kind.identifier
            }
        }

        var errorKind: CourierError.Kind? {
            if case .failure(let error) = self { CourierError.from(transportError: error).kind } else { nil }
        }

        func get() throws -> Answer {
            switch self {
            case .response(let result): return result
            case .failure(let error): throw error
            }
        }
    }
}
