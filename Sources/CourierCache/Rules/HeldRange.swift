import Courier

/// The bytes a partial response carries, as its `Content-Range` says (RFC 9110 §14.4), and the
/// length of the whole representation, which a partial the cache keeps must state.
struct HeldRange: Sendable, Hashable {
    /// The offsets held, inclusive.
    var bytes: ClosedRange<Int64>
    /// The whole representation's length.
    var completeLength: Int64

    /// The held range of a `Content-Range` value such as `bytes 10-19/100`; `nil` when it is
    /// malformed, names another unit or leaves the complete length unknown (`/*`).
    init?(contentRange value: String) {
        guard let range = ContentRange(value), let completeLength = range.completeLength else { return nil }
        self.init(bytes: range.first...range.last, completeLength: completeLength)
    }

    /// A held range from its parts.
    init(bytes: ClosedRange<Int64>, completeLength: Int64) {
        self.bytes = bytes
        self.completeLength = completeLength
    }

    /// The number of bytes held.
    var count: Int64 { bytes.upperBound - bytes.lowerBound + 1 }

    /// Whether the held bytes are the whole representation.
    var isComplete: Bool { bytes.lowerBound == 0 && bytes.upperBound == completeLength - 1 }

    /// The `Content-Range` value describing these bytes.
    var fieldValue: String { "bytes \(bytes.lowerBound)-\(bytes.upperBound)/\(completeLength)" }

    /// The one range holding both, when they overlap or touch (and describe the same length); else `nil`.
    func union(_ other: HeldRange) -> HeldRange? {
        guard completeLength == other.completeLength,
              other.bytes.lowerBound <= bytes.upperBound + 1, bytes.lowerBound <= other.bytes.upperBound + 1
        else { return nil }
        return HeldRange(
            bytes: min(bytes.lowerBound, other.bytes.lowerBound)...max(bytes.upperBound, other.bytes.upperBound),
            completeLength: completeLength)
    }
}
