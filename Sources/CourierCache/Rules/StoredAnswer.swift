/// How a stored response answers a request, given the request's `Range` (see
/// ``CacheRules/storedAnswer(for:from:bodySize:)``).
enum StoredAnswer: Sendable, Hashable {
    /// The stored response as it is: the request asks for no range, or for one the stored response
    /// may ignore (an `If-Range` that doesn't match).
    case whole
    /// A `206` carrying `range` of the representation, found at `bodyOffsets` in the stored body.
    case part(HeldRange, bodyOffsets: Range<Int>)
    /// A `416`: the range selects nothing in a representation of this length.
    case unsatisfiable(completeLength: Int64)
    /// A `304`: the request's own conditions found the stored response unchanged.
    case notModified
}
