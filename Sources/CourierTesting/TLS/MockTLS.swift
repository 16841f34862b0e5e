import Courier
import NIOSSL

/// How a ``MockServer`` serves HTTPS: its certificate, the HTTP versions it offers by ALPN, and
/// whether it asks the client for a certificate (mutual TLS).
///
/// The defaults use ``TestCertificates``: trust ``TestCertificates/caPEM`` in the client under test
/// (`ServerTrust.only(roots: [TestCertificates.caPEM])`) and the server's certificate is valid for
/// `localhost`, `127.0.0.1`, `127.0.0.2` and `::1`.
public struct MockTLS: Sendable {
    /// The server's certificate chain, leaf first (PEM).
    public var certificateChainPEM: [String] = [TestCertificates.leafPEM]
    /// The server certificate's private key (PEM).
    public var privateKeyPEM: String = TestCertificates.leafKeyPEM
    /// Whether HTTP/2 is offered by ALPN (with HTTP/1.1 as the fallback); off, HTTP/1.1 only.
    public var offersHTTP2: Bool
    /// Whether the client must present a certificate issued by ``TestCertificates/caPEM``.
    public var requiresClientCertificate = false

    /// HTTPS over HTTP/1.1 with the test certificate.
    public static let http1 = MockTLS(offersHTTP2: false)
    /// HTTPS offering HTTP/2 (and HTTP/1.1 to clients that don't speak it) with the test certificate.
    public static let http2 = MockTLS(offersHTTP2: true)

    /// Creates a configuration.
    public init(offersHTTP2: Bool, certificateChainPEM: [String] = [TestCertificates.leafPEM], privateKeyPEM: String = TestCertificates.leafKeyPEM) {
        self.offersHTTP2 = offersHTTP2
        self.certificateChainPEM = certificateChainPEM
        self.privateKeyPEM = privateKeyPEM
    }

    /// The pin of the server's certificate (`sha256/…`), for a client that pins it.
    public var leafPin: String {
        (try? ServerTrust.pin(ofCertificatePEM: certificateChainPEM.first ?? "")) ?? ""
    }

    func makeContext() throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try certificateChainPEM.map { .certificate(try NIOSSLCertificate(bytes: Array($0.utf8), format: .pem)) },
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem))
        )
        configuration.applicationProtocols = offersHTTP2 ? ["h2", "http/1.1"] : ["http/1.1"]
        if requiresClientCertificate {
            configuration.certificateVerification = .noHostnameVerification
            configuration.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(TestCertificates.caPEM.utf8), format: .pem)])
        }
        return try NIOSSLContext(configuration: configuration)
    }
}
