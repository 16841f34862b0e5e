@testable import Courier
import Foundation
import HTTPTypes
import Testing

/// The secret list as a value: what it names, how it rewrites URLs inside free text, and the keyed
/// hash a cache keeps secret values under (RFC 4231's test vectors).
struct SecretListTests {
    @Test(arguments: ["client_secret", "id_token", "refresh_token", "code", "X-Amz-Signature", "x-amz-security-token", "sig"])
    func theDefaultListNamesCommonSecretQueryItems(name: String) {
        #expect(Redaction().isSecret(queryItem: name))
        #expect(Redaction().redact(url: "https://h/p?\(name)=v4lue&page=2") == "https://h/p?\(name)=REDACTED&page=2")
    }

    @Test func urlsInsideTextAreRedactedWhateverFollowsThem() {
        let redaction = Redaction()
        let text = #"Error Domain=NSURLErrorDomain Code=-1004 UserInfo={NSErrorFailingURLKey=http://127.0.0.1:9/a?api_key=s3cr3t, NSErrorFailingURLStringKey="https://h/b?x=1&token=t0k;x", other=ok}"#
        let redacted = redaction.redact(text: text)
        #expect(!redacted.contains("s3cr3t"))
        #expect(!redacted.contains("t0k"))
        #expect(redacted.contains("api_key=REDACTED"))
        #expect(redacted.contains("x=1&token=REDACTED"))
        #expect(redacted.contains("other=ok"))
        #expect(redaction.redact(text: "no URL here") == "no URL here")
    }

    /// Names an app adds count whatever their case, as the defaults do.
    @Test func namesTheAppAddsAreCaseInsensitive() throws {
        var redaction = Redaction()
        redaction.headerNames.insert("X-Session-Key")
        redaction.queryNames.formUnion(["Session", "SIGNED"])
        let field = try #require(HTTPField.Name("x-session-key"))
        #expect(redaction.isSecret(header: field))
        #expect(redaction.redact(HTTPFields([HTTPField(name: field, value: "k-1")]))[field] == "REDACTED")
        #expect(redaction.redact(url: "https://h/p?session=s1&Signed=s2&page=2") == "https://h/p?session=REDACTED&Signed=REDACTED&page=2")
        #expect(redaction.headerNames.contains("x-session-key"), "kept lowercased")
    }

    /// What a kept request is refused for: the first secret item, found encoded or not.
    @Test func theFirstSecretQueryItemIsFoundEncodedOrNot() {
        let redaction = Redaction()
        #expect(redaction.firstSecretQueryName(in: "/hooks?page=2&access%5Ftoken=t&api_key=k") == "access_token")
        #expect(redaction.firstSecretQueryName(in: "https://h/p?page=2&API_KEY=k") == "API_KEY")
        #expect(redaction.firstSecretQueryName(in: "/hooks?page=2&tokens=1") == nil)
        #expect(redaction.firstSecretQueryName(in: "/hooks") == nil)
        var none = Redaction()
        none.queryNames = []
        #expect(none.firstSecretQueryName(in: "/hooks?token=t") == nil)
    }

    @Test func credentialFieldsCountEvenWithAnEmptyList() {
        var redaction = Redaction()
        redaction.headerNames = []
        for name in [HTTPField.Name.authorization, .proxyAuthorization, .cookie, HTTPField.Name("X-Auth-Token")!] {
            #expect(redaction.isCredential(header: name))
        }
        #expect(!redaction.isCredential(header: .accept))
        #expect(Redaction().isCredential(header: HTTPField.Name("X-Api-Key")!))
    }

    @Test func mergingHidesWhatEitherHides() {
        var a = Redaction()
        a.headerNames = ["x-one"]
        var b = Redaction()
        b.headerNames = ["x-two"]
        let merged = a.merging(b)
        #expect(merged.isSecret(header: HTTPField.Name("X-One")!) && merged.isSecret(header: HTTPField.Name("X-Two")!))
    }

    /// RFC 4231 §4.2, §4.3, §4.7 (a key longer than the block).
    @Test(arguments: [
        (Array(repeating: UInt8(0x0b), count: 20), Array("Hi There".utf8),
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        (Array(repeating: UInt8(0xaa), count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
    ])
    func hmacMatchesRFC4231(key: [UInt8], message: [UInt8], expected: String) {
        let code = HMAC(key: key).code(for: message)
        #expect(code.map { String(format: "%02x", $0) }.joined() == expected)
    }

    @Test func theHexFormIsAPrefixOfTheCode() {
        let hmac = HMAC(key: Array("Jefe".utf8))
        #expect(hmac.hex("what do ya want for nothing?") == "5bdcc146bf60754e6a042426089575c7")
    }
}
