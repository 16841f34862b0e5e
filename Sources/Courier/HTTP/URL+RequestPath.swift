import Foundation

extension URL {
    /// The absolute URL string of a request path (path and query) relative to this base URL.
    ///
    /// The base may carry a path prefix (`https://host/v1`) and a trailing slash; the request path
    /// starts with `/`, as swift-openapi-runtime's `HTTPRequest.path` does.
    package func absoluteString(appendingRequestPath path: String?) -> String {
        var base = absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return base + (path ?? "")
    }
}
