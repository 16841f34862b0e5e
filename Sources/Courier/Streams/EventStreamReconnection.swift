/// When an ``EventStream`` connects again after its connection was cut, and when it gives up;
/// ``none`` for one connection.
///
/// It waits the reconnection time the server last sent in a `retry` field, or else ``initialDelay``,
/// never less than ``minimumDelay`` (so a `retry: 0` can't make the client reconnect in a loop);
/// each further failure without an event in between doubles the wait, up to ``maximumDelay``.
/// A connection that ends without delivering an event is such a failure. After
/// ``maximumFailures`` failures in a row the last error ends the stream.
public struct EventStreamReconnection: Sendable {
    /// The wait before reconnecting when the server sent no `retry` field.
    public var initialDelay: Duration
    /// The shortest wait between two connections, whatever the server's `retry` field asks.
    public var minimumDelay: Duration
    /// The longest wait between two attempts.
    public var maximumDelay: Duration
    /// How many connections in a row may fail without an event before the stream fails; nil for no limit.
    public var maximumFailures: Int?
    /// The statuses that are worth connecting again for; any other error status ends the stream.
    public var retryableStatuses: Set<Int>
    /// What the waits are measured on: a `ManualClock` in tests.
    package var clock: any Clock<Duration> = ContinuousClock()
    /// Whether the stream connects again at all.
    var reconnects = true

    /// One connection and no reconnecting: the stream ends when the body ends, and fails with the
    /// first error.
    public static var none: EventStreamReconnection {
        var once = EventStreamReconnection(maximumFailures: 1)
        once.reconnects = false
        return once
    }

    /// Creates a reconnection policy.
    /// - Parameters:
    ///   - initialDelay: The wait when the server sent no `retry` field; 3 s, as browsers wait.
    ///   - minimumDelay: The shortest wait between two connections; 1 s (a test may lower it).
    ///   - maximumDelay: The longest wait between two attempts.
    ///   - maximumFailures: How many failed connections in a row end the stream; nil for no limit.
    ///   - retryableStatuses: The error statuses worth connecting again for: by default those of
    ///     ``RetryPolicy/retryableStatuses``.
    public init(
        initialDelay: Duration = .seconds(3),
        minimumDelay: Duration = .seconds(1),
        maximumDelay: Duration = .seconds(60),
        maximumFailures: Int? = 10,
        retryableStatuses: Set<Int> = TransientFailures.statuses
    ) {
        self.initialDelay = initialDelay
        self.minimumDelay = minimumDelay
        self.maximumDelay = maximumDelay
        self.maximumFailures = maximumFailures
        self.retryableStatuses = retryableStatuses
    }

    /// Whether a failure is worth connecting again for: a lost, refused or timed-out connection, or a
    /// retryable status.
    func isRetryable(_ error: CourierError) -> Bool {
        if TransientFailures.errorKinds.contains(error.kind) { return true }
        // A stream cut after a 200 keeps that status as evidence: only an error status decides here.
        guard let status = error.status, status.kind != .successful else { return false }
        return retryableStatuses.contains(status.code)
    }

    /// The wait before attempt `failures + 1` after `failures` failed connections in a row.
    /// It doubles from the server's `retry` (else ``initialDelay``) up to ``maximumDelay``, at most 31
    /// times, never below ``minimumDelay``, without jitter (the server's `retry` is its own).
    func delay(afterFailures failures: Int, serverAsked: Duration?) -> Duration {
        let floor = max(minimumDelay, .zero)
        let base = max(serverAsked ?? initialDelay, floor)
        return ExponentialBackoff(initial: base, maximum: maximumDelay).delay(afterAttempt: min(failures, 32), atLeast: floor)
    }
}
