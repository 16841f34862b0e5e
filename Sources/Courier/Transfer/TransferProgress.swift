/// How far a transfer has come: bytes done and, when the server announced it, the total.
public struct TransferProgress: Sendable, Hashable {
    /// Bytes transferred so far.
    public var completedBytes: Int64
    /// The whole size, when known (a `Content-Length`).
    public var totalBytes: Int64?

    /// A progress value (`CourierTesting` gives tests `init(completedBytes:totalBytes:)`).
    package init(completed completedBytes: Int64, total totalBytes: Int64?) {
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
    }

    /// Done over total, from 0 to 1; nil while the total is unknown.
    public var fractionCompleted: Double? {
        totalBytes.map { $0 > 0 ? min(1, Double(completedBytes) / Double($0)) : 1 }
    }
}
