import Courier
import Foundation

/// The subscriptions to an outbox's changes: each gets every change from its start, in order, and
/// holds at most `limit` not yet read (the newest: see ``Outbox/changes(bufferingNewest:)``).
final class Subscribers: Sendable {
    private let continuations = Locked<[UUID: AsyncStream<OutboxChange>.Continuation]>([:])

    func subscribe(bufferingNewest limit: Int) -> AsyncStream<OutboxChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: OutboxChange.self, bufferingPolicy: .bufferingNewest(max(limit, 1)))
        let id = UUID()
        continuations.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            self?.continuations.withLock { $0[id] = nil }
        }
        return stream
    }

    func send(_ change: OutboxChange) {
        for continuation in continuations.current.values { continuation.yield(change) }
    }

    func finish() {
        let all = continuations.withLock { current in
            defer { current.removeAll() }
            return Array(current.values)
        }
        for continuation in all { continuation.finish() }
    }
}
