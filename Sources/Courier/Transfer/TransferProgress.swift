/// How far a transfer has come: bytes done and, when the server announced it, the total.
public struct TransferProgress: Sendable, Hashable {
    /// Bytes transferred so far.
    public var completedBytes: Int64
    /// The whole size, when known (a `Content-Length`).
    public var totalBytes: Int64?

    /// Creates a progress value.
    public init(completedBytes: Int64, totalBytes: Int64?) {
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
    }

    /// Done over total, from 0 to 1; nil while the total is unknown.
    public var fractionCompleted: Double? {
        totalBytes.map { $0 > 0 ? min(1, Double(completedBytes) / Double($0)) : 1 }
    }
}

/// Passes progress on at most every ``interval`` (20 updates a second), and always the last one.
struct ProgressThrottle {
    static let interval = Duration.milliseconds(50)

    private let report: @Sendable (TransferProgress) -> Void
    private var lastReport: ContinuousClock.Instant?

    init(_ report: @escaping @Sendable (TransferProgress) -> Void) {
        self.report = report
    }

    /// Reports `progress` unless one went out less than ``interval`` ago.
    mutating func update(_ progress: TransferProgress) {
        let now = ContinuousClock.now
        if let lastReport, now - lastReport < Self.interval { return }
        lastReport = now
        report(progress)
    }

    /// Reports the final `progress`, whatever the time since the last one.
    mutating func finish(_ progress: TransferProgress) {
        lastReport = .now
        report(progress)
    }
}
