import AsyncHTTPClient
import Courier
import Foundation
import NIOCore
import NIOSSL

extension AsyncHTTPClientTransport {
    /// Creates a transport that trusts servers as `trust` says, over `HTTPClient`s of its own,
    /// shut down when the last copy of the transport is gone.
    ///
    /// Roots and a client identity go into AsyncHTTPClient's TLS configuration. AsyncHTTPClient
    /// has no certificate-verification callback, so a pinned host gets a client of its own whose
    /// every new connection is checked once its handshake (chain and host name, as always) is
    /// done, before any request is sent on it. Only the server's own certificate can be seen
    /// there: over this transport a pin matches the server certificate's key; to pin a CA, trust
    /// only that CA (`ServerTrust.only(roots:)`).
    /// - Throws: `CourierError` of kind `serverTrust` when a certificate or key can't be read.
    public init(trust: ServerTrust, configuration: HTTPClient.Configuration = recommendedConfiguration) throws(CourierError) {
        let clients = try TrustedClients(trust: trust, configuration: configuration)
        // The transport decodes, unless the configuration has AsyncHTTPClient do it.
        let decoding: ResponseDecoding = if case .enabled = configuration.decompression { .byClient } else { .byTransport }
        self.init(client: clients.main, trusted: clients, decoding: decoding)
    }
}

/// The `HTTPClient`s of a transport made with a ``ServerTrust``: one for every host, and one per
/// pinned host whose connections check the pins.
final class TrustedClients: Sendable {
    let main: HTTPClient
    private let pinned: [String: HTTPClient]

    init(trust: ServerTrust, configuration: HTTPClient.Configuration) throws(CourierError) {
        #if canImport(Network)
        // Network.framework's connections carry no SwiftNIO SSL handler whose certificate a pin check could read.
        if !trust.pins.isEmpty {
            throw CourierError(
                .serverTrust,
                detail: "AsyncHTTPClient on Apple platforms runs on Network.framework, where a pin can't be checked: use URLSessionTransport(trust:)"
            )
        }
        #endif
        var configuration = configuration
        configuration.tlsConfiguration = try Self.tlsConfiguration(trust)
        main = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        var pinned: [String: HTTPClient] = [:]
        for (host, pins) in trust.pins {
            var checked = configuration
            let check: @Sendable (any Channel) -> EventLoopFuture<Void> = { channel in Self.verify(channel, host: host, pins: pins, trust: trust) }
            checked.http1_1ConnectionDebugInitializer = check
            checked.http2ConnectionDebugInitializer = check
            pinned[host] = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: checked)
        }
        self.pinned = pinned
    }

    deinit {
        main.shutdown { _ in }
        for client in pinned.values { client.shutdown { _ in } }
    }

    /// The client for requests to `host`, however it is spelled (a trailing dot, capitals, Unicode).
    func client(for host: String?) -> HTTPClient {
        guard !pinned.isEmpty, let host else { return main }
        return pinned[ServerTrust.normalizedHost(host)] ?? main
    }

    private static func tlsConfiguration(_ trust: ServerTrust) throws(CourierError) -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        var roots: [NIOSSLCertificate] = []
        for pem in trust.roots { roots += try certificates(pem) }
        if !trust.trustsSystemRoots {
            tls.trustRoots = .certificates(roots)
        } else if !roots.isEmpty {
            tls.additionalTrustRoots = [.certificates(roots)]
        }
        if let identity = trust.clientIdentity {
            var chain: [NIOSSLCertificate] = []
            for pem in identity.certificateChainPEM { chain += try certificates(pem) }
            tls.certificateChain = chain.map { .certificate($0) }
            do {
                tls.privateKey = .privateKey(try NIOSSLPrivateKey(bytes: Array(identity.privateKeyPEM.utf8), format: .pem))
            } catch {
                throw CourierError(.serverTrust, detail: "The client identity's private key can't be read", underlying: error)
            }
        }
        return tls
    }

    private static func certificates(_ pem: String) throws(CourierError) -> [NIOSSLCertificate] {
        do {
            return try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8))
        } catch {
            throw CourierError(.serverTrust, detail: "A certificate given to ServerTrust can't be read", underlying: error)
        }
    }

    /// Checks a new connection's certificate against the host's pins: a connection that fails is
    /// never used, and the request fails with the pins the server showed.
    private static func verify(_ channel: any Channel, host: String, pins: Set<String>, trust: ServerTrust) -> EventLoopFuture<Void> {
        channel.nioSSL_peerCertificate().flatMapErrorThrowing { _ in
            throw CourierError(.serverTrust, detail: "\(host) is pinned, but the connection to it is not TLS")
        }.flatMapThrowing { certificate in
            guard let certificate else { throw trust.pinFailure(host: host, shown: []) }
            let pin = try ServerTrust.pin(ofCertificateDER: try certificate.toDERBytes())
            guard pins.contains(pin) else { throw trust.pinFailure(host: host, shown: [pin]) }
        }
    }
}
