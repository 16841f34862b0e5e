import Foundation

/// When one attempt must have its whole response, head and body: the one timeout mechanism of the
/// client and both transports.
///
/// The AsyncHTTPClient transport hands it to the event loop (`execute(request:delegate:deadline:)`
/// bounds the whole response); the URLSession transport and the client's fallback for other
/// transports cancel their work from ``DeadlineTimer``. Every one of them fails with ``error``.
package struct Deadline: Sendable {
    /// The span the deadline was made from, for the error's text.
    package let timeout: Duration
    /// The moment the response must be complete by.
    package let instant: ContinuousClock.Instant

    /// A deadline `timeout` from `start`.
    package init(timeout: Duration, from start: ContinuousClock.Instant = .now) {
        self.timeout = timeout
        instant = start + timeout
    }

    /// The time left, never negative.
    package var remaining: Duration { max(.zero, ContinuousClock.now.duration(to: instant)) }

    /// The one error for a response that missed its deadline.
    package var error: CourierError { CourierError(.timedOut, detail: "No complete response within \(timeout)") }

    /// Runs `action` on the timer thread when the deadline passes, unless the token is cancelled first.
    package func schedule(_ action: @escaping @Sendable () -> Void) -> DeadlineTimer.Token {
        DeadlineTimer.shared.schedule(after: remaining, action)
    }
}

extension Deadline {
    /// Runs `operation` in a task of its own that is cancelled when the deadline passes, failing
    /// with ``error``: the client's bound for a transport that is not a ``CourierTransport``.
    /// When the caller cancels, the error is the operation's own (``CourierError/Kind/cancelled``).
    package func bound<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let expired = Locked(false)
        let task = Task.startingImmediately(operation)
        let timer = schedule {
            expired.withLock { $0 = true }
            task.cancel()
        }
        defer { timer.cancel() }
        do {
            return try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        } catch {
            if expired.current { throw self.error }
            throw error
        }
    }
}
