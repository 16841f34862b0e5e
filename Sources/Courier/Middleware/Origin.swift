import Foundation

/// Scheme, host and port: what decides whether credentials may go to a URL (RFC 6454).
struct Origin: Hashable {
    let scheme: String
    let host: String
    let port: Int
    /// `scheme://host:port`, the base URL of a hop's request path.
    let url: URL

    /// The origin of an http or https URL; nil for other schemes, a URL without a host, or a host
    /// that cannot stand in a URL of its own.
    init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              // Percent-encoded as written: decoded, a host can hold `#` or `/` and name another URL.
              let host = url.host(percentEncoded: true)?.lowercased(), !host.isEmpty
        else { return nil }
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        let literal = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        guard let base = URL(string: "\(scheme)://\(literal):\(port)") else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = port
        self.url = base
    }

    static func == (lhs: Origin, rhs: Origin) -> Bool {
        lhs.scheme == rhs.scheme && lhs.host == rhs.host && lhs.port == rhs.port
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(scheme)
        hasher.combine(host)
        hasher.combine(port)
    }
}
