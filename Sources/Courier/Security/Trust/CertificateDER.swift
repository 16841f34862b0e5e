import Foundation

/// The little X.509 reading pinning needs: PEM to DER, and a certificate's SubjectPublicKeyInfo
/// (RFC 5280 §4.1), read by walking the DER without a crypto library.
package enum CertificateDER {
    /// The certificates of a PEM text, in order, as DER bytes.
    package static func all(inPEM pem: String) -> [[UInt8]] {
        var result: [[UInt8]] = []
        var rest = pem[...]
        while let begin = rest.range(of: "-----BEGIN CERTIFICATE-----"),
              let end = rest.range(of: "-----END CERTIFICATE-----", range: begin.upperBound..<rest.endIndex)
        {
            let base64 = rest[begin.upperBound..<end.lowerBound].filter { !$0.isWhitespace }
            if let data = Data(base64Encoded: String(base64)) { result.append(Array(data)) }
            rest = rest[end.upperBound...]
        }
        return result
    }

    /// The first certificate of a PEM text.
    package static func first(inPEM pem: String) -> [UInt8]? {
        all(inPEM: pem).first
    }

    /// The whole SubjectPublicKeyInfo element (tag, length and value) of a DER certificate; nil
    /// when the bytes are not shaped like one.
    package static func subjectPublicKeyInfo(of der: [UInt8]) -> ArraySlice<UInt8>? {
        guard let certificate = element(in: der[...]), certificate.tag == 0x30,
              let tbs = element(in: certificate.content), tbs.tag == 0x30
        else { return nil }
        var fields = tbs.content
        // version [0] EXPLICIT (optional), serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo.
        if let version = element(in: fields), version.tag == 0xA0 { fields = fields[version.end...] }
        for _ in 0..<5 {
            guard let field = element(in: fields) else { return nil }
            fields = fields[field.end...]
        }
        guard let spki = element(in: fields), spki.tag == 0x30 else { return nil }
        return fields[fields.startIndex..<spki.end]
    }

    /// One DER element at the start of `bytes`: its tag, its content and where it ends.
    private static func element(in bytes: ArraySlice<UInt8>) -> (tag: UInt8, content: ArraySlice<UInt8>, end: Int)? {
        var index = bytes.startIndex
        guard index < bytes.endIndex else { return nil }
        let tag = bytes[index]
        index += 1
        guard index < bytes.endIndex else { return nil }
        var length = Int(bytes[index])
        index += 1
        if length & 0x80 != 0 {
            let count = length & 0x7F
            // Lengths of up to 4 bytes: a certificate is never larger.
            guard (1...4).contains(count), bytes.endIndex - index >= count else { return nil }
            length = 0
            for _ in 0..<count {
                length = length << 8 | Int(bytes[index])
                index += 1
            }
        }
        guard length >= 0, bytes.endIndex - index >= length else { return nil }
        return (tag, bytes[index..<(index + length)], index + length)
    }
}
