@testable import CourierTesting
import Testing

/// The mock server's body digest (swift-crypto's SHA-256, fed a chunk at a time) against FIPS 180-4's
/// examples and Python's hashlib, whole and in pieces.
struct BodyDigestTests {
    private static func hex(_ pieces: [[UInt8]]) -> String {
        var digest = BodyDigest()
        for piece in pieces { digest.update(piece) }
        return digest.hex
    }

    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (String(repeating: "x", count: 55), "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072"),
        (String(repeating: "x", count: 56), "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e"),
        (String(repeating: "x", count: 63), "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2"),
        (String(repeating: "x", count: 64), "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c"),
        (String(repeating: "x", count: 65), "9537c5fdf120482f7d58d25e9ed583f52c02b4e304ea814db1633ad565aed7e9"),
    ])
    func knownDigests(message: String, expected: String) {
        #expect(Self.hex([Array(message.utf8)]) == expected)
    }

    @Test func aMillionAs() {
        #expect(Self.hex([[UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)]) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Pieces of every size across block boundaries give the digest of the whole.
    @Test func piecesGiveTheDigestOfTheWhole() {
        let bytes = (0..<100_000).map { UInt8($0 % 251) }
        var pieces: [[UInt8]] = []
        var start = 0, size = 0
        while start < bytes.count {
            let end = min(bytes.count, start + size)
            pieces.append(Array(bytes[start..<end]))
            start = end
            size = (size + 7) % 150
        }
        #expect(Self.hex(pieces) == "cd2df694e424bc7968cc37f47751019e5ca0cd1bdf2e479ea537c3a1c32ee1aa")
        #expect(Self.hex([bytes]) == Self.hex(pieces))
    }
}
