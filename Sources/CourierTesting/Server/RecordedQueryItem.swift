import Courier

/// One `name=value` pair of a request's query, percent-decoded.
public struct RecordedQueryItem: Sendable, Hashable {
    /// The decoded name.
    public var name: String
    /// The decoded value; empty when the item has no `=`.
    public var value: String

    /// Creates a query item.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// Splits a raw query (the part after `?`, without it) into items, keeping their order.
    ///
    /// Percent escapes are decoded; `+` is kept as is. Invalid escapes are left undecoded.
    static func parse(_ query: Substring) -> [RecordedQueryItem] {
        query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = percentDecoded(parts[0])
            let value = parts.count > 1 ? percentDecoded(parts[1]) : ""
            return RecordedQueryItem(name: name, value: value)
        }
    }

    /// Decodes `%XX` escapes as UTF-8; returns the input unchanged if an escape is invalid.
    static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(\.hexDigitValue), let low = iterator.next().flatMap(\.hexDigitValue) else {
                return String(text)
            }
            bytes.append(high << 4 | low)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
