/// Passes a transfer's progress on: at most every ``interval`` (20 updates a second), never
/// backwards (a retried upload or a restarted download reports again only once it is past what was
/// already reported), and always a last one.
package final class ProgressReporter: Sendable {
    static let interval = Duration.milliseconds(50)

    private let report: @Sendable (TransferProgress) -> Void
    private let last = Locked<(at: ContinuousClock.Instant, bytes: Int64)?>(nil)

    package init(_ report: @escaping @Sendable (TransferProgress) -> Void) {
        self.report = report
    }

    /// Reports `progress` unless it is not ahead of the last report or one went out less than ``interval`` ago.
    package func update(_ progress: TransferProgress) {
        if admits(progress, final: false) { report(progress) }
    }

    /// Reports the final `progress`, whatever the time since the last one.
    package func finish(_ progress: TransferProgress) {
        if admits(progress, final: true) { report(progress) }
    }

    private func admits(_ progress: TransferProgress, final: Bool) -> Bool {
        let now = ContinuousClock.now
        return last.withLock { last in
            if let previous = last {
                guard final ? progress.completedBytes >= previous.bytes : progress.completedBytes > previous.bytes else { return false }
                guard final || now - previous.at >= Self.interval else { return false }
            }
            last = (now, progress.completedBytes)
            return true
        }
    }
}
