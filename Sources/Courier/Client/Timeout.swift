/// Runs `operation`, failing with ``CourierError/Kind/timedOut`` when it takes longer than `timeout`.
///
/// The operation is cancelled when the time is up, so a transport that honours cancellation frees
/// its connection at once. When the caller cancels, the error is ``CourierError/Kind/cancelled``.
func withTimeout<T: Sendable>(_ timeout: Duration, operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else {
            throw CourierError(.cancelled, detail: "The call was cancelled")
        }
        guard let value = first else {
            throw CourierError(.timedOut, detail: "No complete response within \(timeout)")
        }
        return value
    }
}
