/// Runs `operation`, failing with ``CourierError/Kind/timedOut`` when it takes longer than `timeout`.
///
/// For transports that do not enforce the deadline themselves (see ``BufferingTransport``).
/// The operation runs in its own task, which the shared ``DeadlineTimer`` cancels when the time is
/// up, so a transport that honours cancellation frees its connection at once. A timer rather than
/// a sleeping child task: on Linux a cancelled `Task.sleep` keeps its memory until its deadline.
/// When the caller cancels, the error is ``CourierError/Kind/cancelled``.
func withTimeout<T: Sendable>(_ timeout: Duration, operation: @escaping @Sendable () async throws -> T) async throws -> T {
    let timedOut = Locked(false)
    let task = Task.startingImmediately(operation)
    let timer = DeadlineTimer.shared.schedule(after: timeout) {
        timedOut.withLock { $0 = true }
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
        if timedOut.current { throw CourierError(.timedOut, detail: "No complete response within \(timeout)") }
        throw error
    }
}
