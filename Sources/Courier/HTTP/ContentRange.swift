import Foundation

/// A `Content-Range` of a 206 response (RFC 9110 §14.4): the bytes it carries and, when the server
/// knows it, the whole length. Only the `bytes` unit exists; anything else is not a range we sent for.
package struct ContentRange: Sendable, Hashable {
    /// The first byte's offset.
    package var first: Int64
    /// The last byte's offset (inclusive).
    package var last: Int64
    /// The whole representation's length, nil for `*`.
    package var completeLength: Int64?

    /// Parses `bytes first-last/complete` or `bytes first-last/*`; nil when invalid (a last before
    /// the first, a last past the length, another unit, extra characters or numbers too large for a count).
    package init?(_ value: String) {
        var rest = Substring(value.trimmingCharacters(in: .whitespaces))
        guard rest.lowercased().hasPrefix("bytes ") else { return nil }
        rest = rest.dropFirst("bytes ".count).drop { $0 == " " }
        guard let slash = rest.firstIndex(of: "/"), let dash = rest[..<slash].firstIndex(of: "-") else { return nil }
        guard let first = Self.number(rest[..<dash]), let last = Self.number(rest[rest.index(after: dash)..<slash]), first <= last, last < .max else {
            return nil
        }
        let length = rest[rest.index(after: slash)...]
        if length == "*" {
            completeLength = nil
        } else {
            guard let complete = Self.number(length), last < complete else { return nil }
            completeLength = complete
        }
        self.first = first
        self.last = last
    }

    /// The number of bytes the range carries.
    package var count: Int64 { last - first + 1 }

    /// Digits only (no sign, no spaces), within `Int64`.
    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int64(text)
    }
}
