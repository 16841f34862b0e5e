/// Which failures are transient (the network or the server failed, not the request): the one classifier
/// behind a retry's defaults (``RetryPolicy``), an event stream's reconnection and what an outbox
/// sends again later.
///
/// Two horizons, one list: within a call (a retry waits seconds, so only what passes that soon),
/// and later (a write kept for hours, which also outlasts a key still in flight or a server not yet
/// ready).
@usableFromInline
package enum TransientFailures {
    /// Statuses worth the same request again within the call: 408 (the server gave up waiting for
    /// the request), 429 (rate limited), 500, 502, 503 and 504 (a fault, a proxy or an origin
    /// restarting).
    @usableFromInline package static let statuses: Set<Int> = [408, 429, 500, 502, 503, 504]
    /// Error kinds worth the same request again within the call: the network failed, not the
    /// request (a lost or refused connection, an attempt that took too long).
    @usableFromInline package static let errorKinds: Set<CourierError.Kind> = [.connectionLost, .noConnection, .timedOut]

    /// Whether `error` is worth the same request again later: anything worth it within a call,
    /// and 409 (an `Idempotency-Key` still in flight, as the draft has it), 425 (too early), any
    /// other 5xx, a transport's own failure, and a cancellation the sender didn't ask for (a
    /// transport's own).
    package static func areWorthSendingLater(_ error: CourierError) -> Bool {
        if errorKinds.contains(error.kind) || error.kind == .cancelled || error.kind == .transport { return true }
        guard let status = error.status?.code else { return false }
        return statuses.contains(status) || [409, 425].contains(status) || status >= 500
    }
}
