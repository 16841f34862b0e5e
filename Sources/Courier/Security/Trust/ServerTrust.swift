import Crypto
import Foundation

/// Which servers a transport trusts, one setting that ``URLSessionTransport`` and
/// `AsyncHTTPClientTransport` both honour: the system's roots (the default), more or only your
/// own roots (a private CA), SPKI pins per host with backups, and a client certificate for mutual TLS.
///
/// A pin never replaces validation: the chain must still lead to a trusted root and name the host.
/// A pin is `sha256/` and the Base64 SHA-256 of a certificate's SubjectPublicKeyInfo, as OkHttp
/// writes it; ``pin(ofCertificatePEM:)`` computes it, and a failure lists the pins the server
/// showed. List a backup pin (a key you hold in reserve) so a rotated key doesn't lock users out.
///
/// ```swift
/// var trust = ServerTrust.system
/// trust.pin("api.example.com", to: ["sha256/r8udi/Mxd6pLO7y7hZyUMWq8YnFnIWXCqeHsTDRqy8=", "sha256/YLh1…backup"])
/// let transport = try AsyncHTTPClientTransport(trust: trust)
/// ```
///
/// A transport that can't honour a part of it on a platform refuses it when it is created (a
/// ``CourierError/Kind/serverTrust`` error), never skips it. A server that fails it fails the call
/// with ``CourierError/Kind/serverTrust``, which is never retried.
public struct ServerTrust: Sendable, Hashable {
    // Set through `adding(roots:)`, `only(roots:)` and `pin(_:to:)`; read by the transports.
    /// Whether the system's root certificates are trusted; off, only `roots` are.
    package var trustsSystemRoots = true
    /// Root certificates (PEM) trusted besides the system's, or instead of them.
    package var roots: [String] = []
    /// The accepted pins of each host (its name in ASCII, lowercased, without a trailing dot), in `sha256/<Base64>` form.
    package private(set) var pins: [String: Set<String>] = [:]
    /// The certificate and key this client presents when a server asks for one (mutual TLS).
    public var clientIdentity: ClientIdentity?

    /// The system's roots, no pins, no client certificate.
    public static let system = ServerTrust()

    /// Trusts `roots` (PEM) besides the system's roots.
    public static func adding(roots: [String]) -> ServerTrust {
        var trust = ServerTrust()
        trust.roots = roots
        return trust
    }

    /// Trusts `roots` (PEM) only: a private CA, or pinning a CA by trusting nothing else.
    public static func only(roots: [String]) -> ServerTrust {
        var trust = adding(roots: roots)
        trust.trustsSystemRoots = false
        return trust
    }

    /// Whether anything differs from the system's trust.
    package var isSystemDefault: Bool { self == .system }

    /// Accepts `host`'s certificates only when one of them has one of `pins` (a backup pin among them).
    /// The host is matched however a URL spells it: in any case, with a trailing dot, or in Unicode.
    public mutating func pin(_ host: String, to pins: Set<String>) {
        self.pins[Self.normalizedHost(host), default: []].formUnion(pins)
    }

    /// The pins for `host` (spelled any way; see `normalizedHost(_:)`), or nil when it isn't pinned.
    package func pins(for host: String) -> Set<String>? {
        pins[Self.normalizedHost(host)]
    }

    /// A host name as pins are filed under it: IDNA to ASCII (`bücher.example` is
    /// `xn--bcher-kva.example`, by Foundation's URL components), lowercased, without the trailing
    /// dot of a fully qualified name (`api.example.com.` is `api.example.com`).
    package static func normalizedHost(_ host: String) -> String {
        var components = URLComponents()
        components.host = host
        var ascii = (components.encodedHost ?? host).lowercased()
        while ascii.hasSuffix("."), ascii.count > 1 { ascii.removeLast() }
        return ascii
    }

    /// The pin of a certificate (PEM): `sha256/` and the Base64 SHA-256 of its SubjectPublicKeyInfo.
    /// - Throws: ``CourierError/Kind/serverTrust`` when the text holds no readable certificate.
    public static func pin(ofCertificatePEM pem: String) throws(CourierError) -> String {
        guard let der = CertificateDER.first(inPEM: pem) else {
            throw CourierError(.serverTrust, detail: "No PEM certificate in the text given")
        }
        return try pin(ofCertificateDER: der)
    }

    /// The pin of a certificate in DER form.
    /// - Throws: ``CourierError/Kind/serverTrust`` when the bytes are not a certificate.
    public static func pin(ofCertificateDER der: some Collection<UInt8>) throws(CourierError) -> String {
        guard let spki = CertificateDER.subjectPublicKeyInfo(of: Array(der)) else {
            throw CourierError(.serverTrust, detail: "The certificate's public key can't be read")
        }
        return "sha256/" + Data(SHA256.hash(data: spki)).base64EncodedString()
    }

    /// The failure for a server whose certificates match none of `host`'s pins: the evidence a
    /// developer needs to fix the pin (the pins expected and the ones the server showed).
    package func pinFailure(host: String, shown: [String]) -> CourierError {
        let expected = (pins(for: host) ?? []).sorted().joined(separator: ", ")
        return CourierError(
            .serverTrust,
            detail: "No certificate of \(host) matches its pins. Expected one of: \(expected). The server showed: \(shown.joined(separator: ", "))"
        )
    }
}

/// A certificate chain and private key, in PEM, that a client presents for mutual TLS.
public struct ClientIdentity: Sendable, Hashable {
    // Read by the transports alone: an app that holds an identity has no reason to read its key back.
    /// The client's certificate first, then any intermediates.
    package var certificateChainPEM: [String]
    /// The certificate's private key (PKCS #8 or the key type's own PEM).
    package var privateKeyPEM: String

    /// Creates an identity from PEM text.
    public init(certificateChainPEM: [String], privateKeyPEM: String) {
        self.certificateChainPEM = certificateChainPEM
        self.privateKeyPEM = privateKeyPEM
    }
}
