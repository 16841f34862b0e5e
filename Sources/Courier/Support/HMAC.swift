/// HMAC-SHA-256 (RFC 2104): the keyed hash under which a cache keeps secret request values, so its
/// file never holds them in clear and equal values still find each other.
package struct HMAC: Sendable, Hashable {
    private let innerKey: [UInt8]
    private let outerKey: [UInt8]

    /// A keyed hasher; keys longer than the 64-byte block are hashed first, as the RFC says.
    package init(key: some Collection<UInt8>) {
        var block = Array(key)
        if block.count > 64 {
            var hasher = SHA256()
            hasher.update(block)
            block = hasher.finalize()
        }
        block += [UInt8](repeating: 0, count: 64 - block.count)
        innerKey = block.map { $0 ^ 0x36 }
        outerKey = block.map { $0 ^ 0x5c }
    }

    /// The 32-byte authentication code of `message`.
    package func code(for message: some Collection<UInt8>) -> [UInt8] {
        var inner = SHA256()
        inner.update(innerKey)
        inner.update(message)
        var outer = SHA256()
        outer.update(outerKey)
        outer.update(inner.finalize())
        return outer.finalize()
    }

    /// The code of `text`'s UTF-8 bytes as lowercase hex, shortened to `bytes` bytes (16: 128 bits).
    package func hex(_ text: String, bytes: Int = 16) -> String {
        code(for: Array(text.utf8)).prefix(bytes).map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0xf)]])
        }.joined()
    }
}
