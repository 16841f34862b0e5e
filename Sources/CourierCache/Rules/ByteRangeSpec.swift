/// The one byte range a `Range` request header asks for (RFC 9110 §14.1.1, §14.2), before the
/// representation's length is known.
///
/// Parsing is strict: the `bytes` unit (any case), `=`, then exactly one `first-last`, `first-` or
/// `-suffix` made of ASCII digits that fit in `Int64`. Anything else — another unit, several ranges,
/// a last position before the first (`bytes=5-2`), signs, spaces, letters, numbers too large — gives
/// `nil`, and the cache leaves the request to the server.
enum ByteRangeSpec: Sendable, Hashable {
    /// `first-last` (`last` inclusive) or, with `last` nil, `first-` to the end.
    case from(first: Int64, last: Int64?)
    /// `-length`: the last `length` bytes.
    case suffix(length: Int64)

    /// Parses a `Range` field value holding exactly one byte range; `nil` for anything else.
    init?(_ value: String) {
        let unit = "bytes="
        let bytes = Array(value.utf8)
        guard bytes.count > unit.utf8.count,
              String(decoding: bytes[..<unit.utf8.count], as: UTF8.self).lowercased() == unit
        else { return nil }
        let spec = bytes[unit.utf8.count...]
        guard let dash = spec.firstIndex(of: UInt8(ascii: "-")) else { return nil }
        let firstDigits = spec[..<dash]
        let lastDigits = spec[spec.index(after: dash)...]
        if firstDigits.isEmpty {
            guard let length = Self.number(lastDigits) else { return nil }
            self = .suffix(length: length)
            return
        }
        guard let first = Self.number(firstDigits) else { return nil }
        if lastDigits.isEmpty {
            self = .from(first: first, last: nil)
            return
        }
        guard let last = Self.number(lastDigits), first <= last else { return nil }
        self = .from(first: first, last: last)
    }

    /// The offsets (inclusive) this range selects in a representation of `length` bytes; `nil`
    /// when it selects nothing (unsatisfiable: a first position at or past the end, a zero suffix,
    /// or an empty representation). A last position past the end is clamped to it.
    func resolved(length: Int64) -> ClosedRange<Int64>? {
        guard length > 0 else { return nil }
        switch self {
        case .from(let first, let last):
            guard first < length else { return nil }
            return first...min(last ?? (length - 1), length - 1)
        case .suffix(let suffix):
            guard suffix > 0 else { return nil }
            return max(0, length - suffix)...(length - 1)
        }
    }

    /// ASCII digits only, within `Int64` (`Int64.init` refuses an overflow); `nil` otherwise.
    private static func number(_ digits: ArraySlice<UInt8>) -> Int64? {
        guard !digits.isEmpty, digits.count <= 19,
              digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int64(String(decoding: digits, as: UTF8.self))
    }
}
