import Courier

/// A request body's length and (when `hashes`) SHA-256, updated chunk by chunk as the body arrives.
struct BodyDigest: Sendable {
    private var hasher = SHA256()
    private(set) var length = 0
    let hashes: Bool

    init(hashes: Bool = true) {
        self.hashes = hashes
    }

    /// The digest of a whole body.
    init(_ bytes: some Collection<UInt8>) {
        self.init()
        update(bytes)
    }

    /// A whole body's length only.
    init(counting bytes: some Collection<UInt8>) {
        self.init(hashes: false)
        update(bytes)
    }

    mutating func update(_ bytes: some Collection<UInt8>) {
        length += bytes.count
        if hashes { hasher.update(bytes) }
    }

    /// The SHA-256 in lowercase hex.
    var hex: String {
        let digits = Array("0123456789abcdef")
        return String(hasher.finalize().flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0f)]] })
    }
}
