import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one way ``URLSessionTransport`` stops a session task: a caller's cancel, a deadline, a head
/// or body over the limit, a reader that left, a body or a spill file that failed.
///
/// FoundationNetworking traps the process when a cancel races the task's own end ("Trying to
/// access the behaviour for a task that's not in the registry", swift-corelibs-foundation #3296).
/// So the stop runs on the session's delegate queue, where the task's completion is delivered and
/// its state set (a cancel there either comes first, or finds the task completed), and it skips a
/// task that has ended, is ending, or has all its bytes: such a task ends on its own.
final class TaskStop: Sendable {
    private let task: URLSessionTask
    private let queue: OperationQueue
    /// Body bytes the delegate received (FoundationNetworking counts none for a data task).
    private let received = Locked<Int64>(0)

    init(_ task: URLSessionTask, in session: URLSession) {
        self.task = task
        queue = session.delegateQueue
    }

    /// Counts body bytes as the delegate receives them.
    func count(_ bytes: Int) {
        received.withLock { $0 += Int64(bytes) }
    }

    /// Whether the whole body has arrived, by the length the task expects (announced, and not
    /// content-coded; unknown otherwise, never whole).
    var hasWholeBody: Bool {
        let expected = task.countOfBytesExpectedToReceive
        return expected > 0 && received.withLock { $0 } >= expected
    }

    /// Stops the task: at once on the delegate queue, else in that queue's order.
    func callAsFunction() {
        guard OperationQueue.current !== queue else { return stopHere() }
        queue.addOperation { [self] in stopHere() }
    }

    private func stopHere() {
        guard task.state == .running || task.state == .suspended, !hasWholeBody else { return }
        task.cancel()
    }
}
