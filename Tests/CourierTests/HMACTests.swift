import Courier
import Testing

/// The cache's keyed hash of secrets is HMAC-SHA-256 exactly (RFC 4231's vectors), so hashes a store
/// kept before swift-crypto computed them still match: no re-keying is needed.
@Suite struct HMACTests {
    @Test func rfc4231TestCase2() {
        let code = HMAC(key: Array("Jefe".utf8)).code(for: Array("what do ya want for nothing?".utf8))
        #expect(code.hexDigits == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    /// A key longer than the block is hashed first.
    @Test func rfc4231TestCase6() {
        let code = HMAC(key: [UInt8](repeating: 0xaa, count: 131)).code(for: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))
        #expect(code.hexDigits == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    @Test func theStoredFormIsTheCodesFirst16BytesInHex() {
        #expect(HMAC(key: Array("Jefe".utf8)).hex("what do ya want for nothing?") == "5bdcc146bf60754e6a042426089575c7")
    }
}
