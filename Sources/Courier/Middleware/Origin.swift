import Foundation

/// Scheme, host and port: what decides whether credentials may go to a URL (RFC 6454).
struct Origin: Hashable {
    let scheme: String
    let host: String
    let port: Int

    /// The origin of an http or https URL; nil for other schemes or a URL without a host.
    init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host?.lowercased(), !host.isEmpty
        else { return nil }
        self.scheme = scheme
        self.host = host
        port = url.port ?? (scheme == "https" ? 443 : 80)
    }

    /// `scheme://host:port`, the base URL of a hop's request path.
    var url: URL? {
        let literal = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return URL(string: "\(scheme)://\(literal):\(port)")
    }
}
