import Crypto

/// A request body's length and SHA-256, updated chunk by chunk as the body arrives.
struct BodyDigest: Sendable {
    private var hasher = SHA256()
    private(set) var length = 0

    init() {}

    /// The digest of a whole body.
    init(_ bytes: some Collection<UInt8>) {
        update(bytes)
    }

    mutating func update(_ bytes: some Collection<UInt8>) {
        length += bytes.count
        if bytes.withContiguousStorageIfAvailable({ hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }) == nil {
            hasher.update(data: Array(bytes))
        }
    }

    /// The SHA-256 in lowercase hex.
    var hex: String {
        let digits = Array("0123456789abcdef")
        return String(hasher.finalize().flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0f)]] })
    }
}
