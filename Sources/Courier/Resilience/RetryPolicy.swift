import HTTPTypes

/// When and how long to wait before sending a failed request again: a documented, testable value.
///
/// A request is retried only when all of these hold:
/// - **Its method is safe to repeat.** ``retryableMethods`` lists the methods RFC 9110 §9.2.2 defines
///   as idempotent; a POST or PATCH is retried only when its endpoint opts in with an
///   ``Endpoint/idempotencyKey`` (the same `Idempotency-Key` on every attempt) or declares
///   ``Endpoint/isIdempotent``, and any other endpoint that declares itself not idempotent is never retried.
/// - **The failure is likely to be temporary:** a status in ``retryableStatuses`` or an error kind in
///   ``retryableErrorKinds``. A cancelled call is never retried.
/// - **The budget allows it:** fewer than ``maximumAttempts`` attempts so far, and the wait would end
///   before ``totalDeadline`` (counted from the start of the first attempt).
/// - **The server did not ask for too long a pause:** a `Retry-After` longer than
///   ``maximumRetryAfter`` ends the retries and the response is returned as is.
///
/// Waits grow exponentially with *full jitter* (AWS Architecture Blog, "Exponential Backoff And
/// Jitter"): before retry *n* the wait is a random duration in `0 ... min(maximumDelay, baseDelay * 2^(n-1))`,
/// so clients that failed together do not come back together. A `Retry-After` field is the wait's
/// floor (RFC 9110 §10.2.3: how long to wait at least): the random wait when it is longer, else
/// the server's own.
///
/// ```swift
/// var policy = RetryPolicy.default
/// policy.maximumAttempts = 5
/// let client = Client(baseURL: url, middlewares: [RetryMiddleware(policy: policy), ...])
/// ```
public struct RetryPolicy: Sendable {
    /// The most attempts a request gets, the first included; 1 disables retries.
    public var maximumAttempts: Int
    /// The upper bound of the first random wait; each later bound doubles it.
    public var baseDelay: Duration
    /// The largest upper bound a random wait can reach (the cap of the exponential growth).
    public var maximumDelay: Duration
    /// The time from the start of the first attempt after which no wait or attempt begins.
    public var totalDeadline: Duration
    /// The longest `Retry-After` honoured; a longer one ends the retries and returns the response.
    public var maximumRetryAfter: Duration
    /// Methods retried unless the endpoint declares itself not idempotent.
    ///
    /// By default the methods RFC 9110 §9.2.2 defines as idempotent, which have the effect of one
    /// request when sent twice:
    /// - GET, HEAD, OPTIONS, TRACE: safe, they change nothing on the server.
    /// - PUT: replaces a resource with the same representation each time.
    /// - DELETE: a second delete leaves the resource as deleted as the first.
    ///
    /// POST and PATCH are absent: repeating them may create or change twice.
    public var retryableMethods: Set<HTTPRequest.Method>
    /// Status codes that signal a temporary condition.
    ///
    /// By default the statuses that say "try again later":
    /// - 408 Request Timeout: the server gave up waiting for the request; a new one may arrive in time.
    /// - 429 Too Many Requests: rate limited; usually comes with `Retry-After`.
    /// - 500 Internal Server Error: often a transient fault (a failed dependency, a deploy in progress).
    /// - 502 Bad Gateway: a proxy could not reach the origin, e.g. while it restarts.
    /// - 503 Service Unavailable: overloaded or in maintenance; usually comes with `Retry-After`.
    /// - 504 Gateway Timeout: a proxy gave up waiting for the origin.
    ///
    /// To add one, start from the default: `policy.retryableStatuses.insert(409)`.
    public var retryableStatuses: Set<Int>
    /// Error kinds that signal a temporary condition; ``CourierError/Kind/cancelled`` is ignored here.
    ///
    /// By default the kinds that say the network, not the request, failed:
    /// - ``CourierError/Kind/connectionLost``: a reused keep-alive connection closed by the server, a
    ///   reset in flight; a fresh connection usually succeeds.
    /// - ``CourierError/Kind/noConnection``: connection refused or host unreachable, as while a server
    ///   restarts or a network switches (Wi-Fi to cellular).
    /// - ``CourierError/Kind/timedOut``: one attempt took too long; a slow server or a lost packet may
    ///   not repeat.
    public var retryableErrorKinds: Set<CourierError.Kind>
    /// Where the jitter comes from; tests fix it.
    package var random = RandomSource.system

    /// Creates a policy; every parameter has the value of ``default``.
    /// - Parameters:
    ///   - maximumAttempts: The most attempts, the first included (3).
    ///   - baseDelay: The bound of the first random wait (0.5 s).
    ///   - maximumDelay: The cap of the random waits' bound (8 s).
    ///   - totalDeadline: No wait or attempt starts that would end later than this after the first attempt began (30 s).
    ///   - maximumRetryAfter: The longest `Retry-After` honoured (20 s).
    ///   - retryableMethods: GET, HEAD, PUT, DELETE, OPTIONS and TRACE.
    ///   - retryableStatuses: 408, 429, 500, 502, 503 and 504.
    ///   - retryableErrorKinds: Lost connection, no connection, timed out.
    public init(
        maximumAttempts: Int = 3,
        baseDelay: Duration = .milliseconds(500),
        maximumDelay: Duration = .seconds(8),
        totalDeadline: Duration = .seconds(30),
        maximumRetryAfter: Duration = .seconds(20),
        retryableMethods: Set<HTTPRequest.Method> = HTTPRequest.Method.idempotent,
        retryableStatuses: Set<Int> = TransientFailures.statuses,
        retryableErrorKinds: Set<CourierError.Kind> = TransientFailures.errorKinds
    ) {
        self.maximumAttempts = maximumAttempts
        self.baseDelay = baseDelay
        self.maximumDelay = maximumDelay
        self.totalDeadline = totalDeadline
        self.maximumRetryAfter = maximumRetryAfter
        self.retryableMethods = retryableMethods
        self.retryableStatuses = retryableStatuses
        self.retryableErrorKinds = retryableErrorKinds
    }

    /// Three attempts with full-jitter backoff from 0.5 s, capped at 8 s, within 30 s.
    public static let `default` = RetryPolicy()

    /// One attempt: never retries.
    public static let none = RetryPolicy(maximumAttempts: 1)
}

extension RetryPolicy {
    /// Draws the jitter of a wait: a fraction in `0 ... 1` of the wait's upper bound.
    package struct RandomSource: Sendable {
        private let draw: @Sendable () -> Double

        /// Creates a source from a function returning fractions in `0 ... 1` (values outside are clamped).
        /// - Parameter fraction: Called once per wait.
        package init(_ fraction: @escaping @Sendable () -> Double) {
            draw = fraction
        }

        /// The next fraction, clamped to `0 ... 1`.
        package func nextFraction() -> Double {
            let value = draw()
            guard value.isFinite else { return 1 }
            return min(max(value, 0), 1)
        }

        /// Uniform fractions from the system random number generator.
        package static let system = RandomSource { Double.random(in: 0 ... 1) }

        /// Always the same fraction: `fixed(1)` waits the whole bound, `fixed(0)` not at all.
        /// - Parameter fraction: The fraction every wait uses.
        package static func fixed(_ fraction: Double) -> RandomSource { RandomSource { fraction } }
    }
}
