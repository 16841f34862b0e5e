import Courier
import Foundation

/// A time limit for a remote storage's operations that answers at the limit even when the
/// operation ignores cancellation, and that refuses new work while too much lingers.
///
/// A query to a database that froze, or to a cache server behind a dead link, may not end when
/// its task is cancelled: its driver waits for the socket. Waiting for it would cost the app's
/// call the whole stall, so ``run(orThrow:_:)`` returns at ``timeout`` and leaves the operation,
/// cancelled, to end on its own. Each such operation may hold one of the pool's connections
/// until it ends; while ``maximumAbandoned`` of them still run, ``isSaturated`` says so, and the
/// storage should fail at once rather than take another connection.
///
/// ```swift
/// let limit = StorageTimeLimit(timeout: .seconds(2))
/// guard !limit.isSaturated else { throw MyStorageError.stalled }
/// let rows = try await limit.run(orThrow: { MyStorageError.timedOut }) { try await redis.get(key) }
/// ```
///
/// `HTTPCache` treats any error from a storage as a miss (and its breaker skips a storage that
/// keeps failing), so a storage that throws within its limit costs a call no more than that.
public final class StorageTimeLimit: Sendable {
    /// How long one operation may take.
    public let timeout: Duration
    /// How many operations given up on may still run before ``isSaturated``.
    public let maximumAbandoned: Int
    private let abandoned: AbandonedWork

    /// A limit of `timeout` per operation, saturated while `maximumAbandoned` (at least 1)
    /// operations run past it.
    public init(timeout: Duration, maximumAbandoned: Int = 4) {
        self.timeout = timeout
        self.abandoned = AbandonedWork(limit: maximumAbandoned)
        self.maximumAbandoned = abandoned.limit
    }

    /// How many operations were given up on at their limit and haven't ended yet.
    public var abandonedCount: Int { abandoned.current }

    /// Whether ``maximumAbandoned`` operations given up on still run: new ones should be refused.
    public var isSaturated: Bool { abandoned.isFull }

    /// Runs `operation` in a task of its own and returns its result; throws `expired()` once
    /// ``timeout`` passes, or `CancellationError` when the caller is cancelled, without waiting
    /// for the operation to end (it is cancelled, and counted in ``abandonedCount`` until it does).
    public func run<T: Sendable>(
        orThrow expired: @escaping @Sendable () -> any Error, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await Deadline(timeout: timeout).abandoning(expired, to: abandoned, operation)
    }
}
