import Courier
import NIOSSL

extension AsyncHTTPClientTransport {
    /// BoringSSL's reason code for a certificate that failed verification (`SSL_R_CERTIFICATE_VERIFY_FAILED`).
    private static let certificateVerifyFailed: UInt32 = 125

    /// Maps a TLS failure: a certificate that failed verification (untrusted, expired, for another
    /// host) is ``CourierError/Kind/serverTrust``, with BoringSSL's reason as the evidence; any other
    /// handshake failure (a server that refused this client's certificate) is a transport error.
    static func mapTLS(_ error: NIOSSLError) -> CourierError {
        switch error {
        case .handshakeFailed(let failure):
            if case .sslError(let stack) = failure, stack.contains(where: { reasonCode(of: $0) == certificateVerifyFailed }) {
                return CourierError(.serverTrust, detail: "The server's certificate was not trusted: \(failure)", underlying: error)
            }
            return CourierError(.transport, detail: "The TLS handshake failed: \(failure)", underlying: error)
        default:
            return CourierError(.transport, detail: "TLS: \(error)", underlying: error)
        }
    }

    /// The reason code (the low 12 bits) of a BoringSSL packed error, which swift-nio-ssl shows only
    /// as text: `Error: <packed code> <message>`. The code is read, not the message.
    private static func reasonCode(of error: BoringSSLInternalError) -> UInt32? {
        let text = error.description
        guard text.hasPrefix("Error: ") else { return nil }
        return text.dropFirst(7).prefix { $0.isNumber }.isEmpty ? nil : UInt32(text.dropFirst(7).prefix { $0.isNumber }).map { $0 & 0xFFF }
    }
}
