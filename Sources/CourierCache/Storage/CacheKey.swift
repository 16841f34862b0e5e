import Foundation
import HTTPTypes

/// Identifies the stored responses of one resource: method, full URL (query included) and user partition.
///
/// Variants of the same key are told apart by their ``VarySelection``.
public struct CacheKey: Sendable, Hashable {
    /// The request method, e.g. `GET`.
    public var method: String
    /// The normalised absolute URL including the query: scheme and host lowercased, default port
    /// and fragment removed, path and query kept byte for byte.
    public var url: String
    /// The partition the response belongs to (`""` for anonymous requests, `id:` and the escaped
    /// identity for a user's); never holds a NUL, which some databases' text ends at.
    public var partition: String

    /// Creates a key from a URL, normalising it with ``normalizedURL(_:)``.
    package init(method: String = "GET", url: URL, partition: String = "") {
        self.init(method: method, normalizedURL: Self.normalizedURL(url), partition: partition)
    }

    /// Creates a key from an already normalised URL string, used verbatim.
    public init(method: String = "GET", normalizedURL: String, partition: String = "") {
        self.method = method
        self.url = normalizedURL
        self.partition = partition
    }

    /// Creates a key for a request; `nil` when the request has no absolute URL (scheme and authority).
    package init?(request: HTTPRequest, partition: String = "") {
        guard let url = request.url else { return nil }
        self.init(method: request.method.rawValue, url: url, partition: partition)
    }

    /// Normalises an absolute URL string (see ``normalizedURL(_:)``); `nil` when it is not a URL.
    /// A string already in normal form (nearly every call's) is its own key, without `URLComponents`.
    package static func normalizedURL(string: String) -> String? {
        if isNormalized(string) { return string }
        return URL(string: string).map(normalizedURL)
    }

    /// Whether `string` is an `http`/`https` URL that ``normalizedURL(_:)`` would return unchanged:
    /// lowercase scheme and host, no user info, no default port, a path, no fragment, and only
    /// characters a URL may hold as they are.
    static func isNormalized(_ string: String) -> Bool {
        var string = string
        // Read in place: every cached call asks, and walking a `Substring.UTF8View` cost twice as much.
        return string.withUTF8 { isNormalized(utf8: $0) }
    }

    private static func isNormalized(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let https = bytes.starts(with: "https://".utf8)
        guard https || bytes.starts(with: "http://".utf8) else { return false }
        let rest = bytes[(https ? 8 : 7)...]
        guard let slash = rest.firstIndex(of: UInt8(ascii: "/")) else { return false }
        let authority = rest[..<slash]
        guard !authority.isEmpty, authority.allSatisfy({ URLBytes.kind[Int($0)] == .authority }) else { return false }
        if let colon = authority.firstIndex(of: UInt8(ascii: ":")) {
            let port = authority[(colon + 1)...]
            guard !port.isEmpty, port.first != UInt8(ascii: "0"), !port.elementsEqual((https ? "443" : "80").utf8),
                  port.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
            else { return false }
        }
        // `%` (its case could matter), `#`, spaces and anything else take the full path.
        return rest[slash...].allSatisfy { URLBytes.kind[Int($0)] != .other }
    }

    /// Normalises a URL for use as a key: scheme and host lowercased, default port (80/443)
    /// dropped, empty path made `/`, fragment removed; path and query kept byte for byte, in order.
    package static func normalizedURL(_ url: URL) -> String {
        guard var components = URLComponents(url: url.absoluteURL, resolvingAgainstBaseURL: true) else {
            return url.absoluteString
        }
        let scheme = components.scheme?.lowercased()
        components.scheme = scheme
        if let host = components.percentEncodedHost {
            components.percentEncodedHost = host.lowercased()
        }
        if let port = components.port,
           (scheme == "http" && port == 80) || (scheme == "https" && port == 443) {
            components.port = nil
        }
        if components.percentEncodedPath.isEmpty, components.host != nil {
            components.percentEncodedPath = "/"
        }
        components.fragment = nil
        return components.string ?? url.absoluteString
    }
}

/// Which bytes a URL in normal form holds as they are, by where they may appear.
private enum URLBytes {
    enum Kind { case authority, path, other }

    /// One entry a byte: lowercase letters, digits, `-`, `.` and `:` may be in the authority (and
    /// the path); uppercase letters and the other unreserved or sub-delimiter characters only in
    /// the path and query.
    static let kind: [Kind] = (0...255).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: ":"):
            .authority
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"),
             UInt8(ascii: "?"), UInt8(ascii: "="), UInt8(ascii: "&"), UInt8(ascii: "+"), UInt8(ascii: ","),
             UInt8(ascii: ";"), UInt8(ascii: "@"), UInt8(ascii: "!"), UInt8(ascii: "$"),
             UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"):
            .path
        default:
            .other
        }
    }
}
