import Crypto

/// HMAC-SHA-256 (RFC 2104, by swift-crypto): the keyed hash under which a cache keeps secret request
/// values, so its file never holds them in clear and equal values still find each other.
package struct HMAC: Sendable, Hashable {
    /// The key's bytes: kept so that two hashers under the same key are equal.
    private let key: [UInt8]

    /// A keyed hasher; a key longer than SHA-256's 64-byte block is hashed first, as the RFC says.
    package init(key: some Collection<UInt8>) {
        self.key = Array(key)
    }

    /// The 32-byte authentication code of `message`.
    package func code(for message: some Collection<UInt8>) -> [UInt8] {
        Array(Crypto.HMAC<SHA256>.authenticationCode(for: Array(message), using: SymmetricKey(data: key)))
    }

    /// The code of `text`'s UTF-8 bytes as lowercase hex, shortened to `bytes` bytes (16: 128 bits).
    package func hex(_ text: String, bytes: Int = 16) -> String {
        code(for: Array(text.utf8)).prefix(bytes).hexDigits
    }
}
