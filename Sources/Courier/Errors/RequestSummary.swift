import Foundation
import HTTPTypes

/// The method and redacted URL of a request, kept as evidence in errors.
public struct RequestSummary: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The HTTP method.
    public var method: HTTPRequest.Method
    /// The absolute URL with secret query items replaced by `REDACTED`.
    public var url: String {
        get { source.url }
        set { source = .redacted(newValue) }
    }

    private var source: Source

    /// Every call keeps a summary but few read it: the client's are put together and redacted on first read.
    private enum Source: Sendable {
        case redacted(String)
        case pending(baseURL: URL, path: String?, redaction: Redaction)

        var url: String {
            switch self {
            case .redacted(let url): url
            case .pending(let baseURL, let path, let redaction): redaction.redact(url: baseURL.absoluteString(appendingRequestPath: path))
            }
        }
    }

    /// Creates a summary from an already redacted URL.
    package init(method: HTTPRequest.Method, url: String) {
        self.method = method
        source = .redacted(url)
    }

    /// A summary of a request path relative to `baseURL`, redacted when read.
    init(method: HTTPRequest.Method, baseURL: URL, path: String?, redaction: Redaction) {
        self.method = method
        source = .pending(baseURL: baseURL, path: path, redaction: redaction)
    }

    /// `GET https://host/path?query`.
    public var description: String { "\(method.rawValue) \(url)" }

    /// Equal when method and redacted URL are.
    public static func == (lhs: RequestSummary, rhs: RequestSummary) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url
    }

    /// Hashes the method and the redacted URL.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(url)
    }

    /// Method and redacted URL only: `dump` and debuggers never see the unredacted path.
    public var customMirror: Mirror {
        Mirror(self, children: ["method": method, "url": url], displayStyle: .struct)
    }
}
