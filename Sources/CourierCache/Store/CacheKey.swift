import Foundation
import HTTPTypes

/// Identifies the stored responses of one resource: method, full URL (query included) and user partition.
///
/// Variants of the same key are told apart by their ``VarySelection``.
package struct CacheKey: Sendable, Hashable {
    /// The request method, e.g. `GET`.
    package var method: String
    /// The normalised absolute URL including the query (see ``normalizedURL(_:)``).
    package var url: String
    /// The identity of the user the response belongs to; `""` for anonymous requests.
    package var partition: String

    /// Creates a key from a URL, normalising it with ``normalizedURL(_:)``.
    package init(method: String = "GET", url: URL, partition: String = "") {
        self.init(method: method, normalizedURL: Self.normalizedURL(url), partition: partition)
    }

    /// Creates a key from an already normalised URL string, used verbatim.
    package init(method: String = "GET", normalizedURL: String, partition: String = "") {
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
    ///
    /// Remembered for the URLs seen lately: every cached call needs its key, and `URLComponents`
    /// costs more than the rest of a fresh hit.
    package static func normalizedURL(string: String) -> String? {
        normalized.value(for: string) { string in URL(string: string).map(normalizedURL) }
    }

    private static let normalized = BoundedMemo<String, String?>()

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
