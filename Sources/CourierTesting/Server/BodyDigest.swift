import Courier
import Crypto

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
        guard hashes else { return }
        if bytes.withContiguousStorageIfAvailable({ hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }) == nil {
            hasher.update(data: Array(bytes))
        }
    }

    /// The SHA-256 in lowercase hex.
    var hex: String {
        hasher.finalize().hexDigits
    }
}
