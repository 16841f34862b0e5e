import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Security)
import Security
#endif

/// How ``URLSessionTransport`` applies a ``ServerTrust``: on Apple platforms in the session's
/// server-trust challenge (roots as anchors, then the pins against every certificate of the
/// evaluated chain); on Linux, where URLSession (libcurl) verifies with the system's roots and
/// delivers no such challenge, anything but the system's trust is refused when the transport is made.
struct URLSessionTrust: Sendable {
    let trust: ServerTrust

    /// - Throws: ``CourierError/Kind/serverTrust`` for what this platform's URLSession can't honour.
    init(_ trust: ServerTrust) throws(CourierError) {
        #if canImport(Security)
        if trust.clientIdentity != nil {
            throw CourierError(.serverTrust, detail: "URLSessionTransport takes no client certificate yet: use AsyncHTTPClientTransport for mutual TLS")
        }
        #else
        guard trust.isSystemDefault else {
            throw CourierError(
                .serverTrust,
                detail: "URLSession on Linux verifies servers with the system's roots only: use AsyncHTTPClientTransport for other roots, pins or a client certificate"
            )
        }
        #endif
        self.trust = trust
    }

    #if canImport(Security)
    /// Evaluates a server-trust challenge; nil when the system's default handling applies.
    /// - Returns: Whether the server is trusted, with the failure's evidence when it is not.
    func evaluate(_ serverTrust: SecTrust, host: String) -> CourierError? {
        if !trust.roots.isEmpty {
            let anchors = trust.roots.flatMap(CertificateDER.all(inPEM:)).compactMap { SecCertificateCreateWithData(nil, Data($0) as CFData) }
            SecTrustSetAnchorCertificates(serverTrust, anchors as CFArray)
            SecTrustSetAnchorCertificatesOnly(serverTrust, !trust.trustsSystemRoots)
        }
        var failure: CFError?
        guard SecTrustEvaluateWithError(serverTrust, &failure) else {
            return CourierError(.serverTrust, detail: "\(host): the server's certificate was not trusted: \(failure.map { String(describing: $0) } ?? "")")
        }
        guard let pins = trust.pins(for: host) else { return nil }
        let chain = (SecTrustCopyCertificateChain(serverTrust) as? [SecCertificate]) ?? []
        let shown = chain.compactMap { try? ServerTrust.pin(ofCertificateDER: Array(SecCertificateCopyData($0) as Data)) }
        return shown.contains(where: pins.contains) ? nil : trust.pinFailure(host: host, shown: shown)
    }
    #endif
}
