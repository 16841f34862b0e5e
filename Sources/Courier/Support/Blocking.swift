import Dispatch

/// Runs blocking work (an `fsync`, which can take seconds) on a dispatch thread, not on one of
/// Swift's shared pool, which has one thread per core: work that blocks them all stops every task.
package func runningBlocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        DispatchQueue.global(qos: .utility).async {
            continuation.resume(with: Result { try work() })
        }
    }
}
