import Courier
import Foundation

/// Bounds an operation in time: the caller gets its result, or an error once `timeout` has passed,
/// even when the operation ignores cancellation (a query to a database that hangs). The operation
/// is then cancelled and left to end on its own (Courier's `Deadline` waits for the work it cancels).
enum TimeBound {
    static func run<T: Sendable>(
        within timeout: Duration, _ operation: String, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let outcome = Locked<CheckedContinuation<T, any Error>?>(nil)
        let work = Locked<[Task<Void, Never>]>([])
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                outcome.withLock { $0 = continuation }
                @Sendable func finish(_ result: Result<T, any Error>) {
                    guard let continuation = outcome.withLock({ pending in defer { pending = nil }; return pending }) else { return }
                    continuation.resume(with: result)
                    for task in work.withLock({ $0 }) { task.cancel() }
                }
                let operationTask = Task {
                    do { finish(.success(try await body())) } catch { finish(.failure(error)) }
                }
                let timer = Task {
                    try? await Task.sleep(for: timeout)
                    finish(.failure(PostgresCacheError.timedOut(operation: operation, after: timeout)))
                }
                work.withLock { $0 = [operationTask, timer] }
                if outcome.withLock({ $0 == nil }) { operationTask.cancel(); timer.cancel() }
            }
        } onCancel: {
            guard let continuation = outcome.withLock({ pending in defer { pending = nil }; return pending }) else { return }
            continuation.resume(throwing: CancellationError())
            for task in work.withLock({ $0 }) { task.cancel() }
        }
    }
}
