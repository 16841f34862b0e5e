import Foundation
import HTTPTypes

extension CacheRules {
    /// The methods that never invalidate (RFC 9110 §9.2.1 safe methods).
    static let safeMethods: Set<HTTPRequest.Method> = [.get, .head, .options, .trace]

    /// Whether a response to `method` invalidates stored responses (RFC 9111 §4.4).
    ///
    /// True for an unsafe method (`POST`, `PUT`, `PATCH`, `DELETE`, or any unknown method) with a
    /// non-error status (2xx or 3xx).
    package func invalidates(method: HTTPRequest.Method, status: HTTPResponse.Status) -> Bool {
        !Self.safeMethods.contains(method) && (200..<400).contains(status.code)
    }

    /// The URLs whose stored responses (all methods, variants and partitions the caller owns) to remove.
    ///
    /// The target URI of `request`, plus the `Location` and `Content-Location` of `response`
    /// resolved against it when they share its origin (scheme, host and port). Empty when
    /// ``invalidates(method:status:)`` is false or the request has no absolute URL.
    package func invalidationTargets(request: HTTPRequest, response: HTTPResponse) -> [URL] {
        guard invalidates(method: request.method, status: response.status), let target = request.url else { return [] }
        var targets = [target]
        for name in [HTTPField.Name.location, .contentLocation] {
            guard let value = response.headerFields[values: name].first,
                  let resolved = URL(string: value, relativeTo: target)?.absoluteURL,
                  Self.sameOrigin(resolved, target),
                  !targets.contains(resolved)
            else { continue }
            targets.append(resolved)
        }
        return targets
    }

    /// Whether two URLs share scheme, host and (effective) port.
    static func sameOrigin(_ lhs: URL, _ rhs: URL) -> Bool {
        guard let lhsScheme = lhs.scheme?.lowercased(), let lhsHost = lhs.host?.lowercased(),
              lhsScheme == rhs.scheme?.lowercased(), lhsHost == rhs.host?.lowercased()
        else { return false }
        return effectivePort(lhs) == effectivePort(rhs)
    }

    private static func effectivePort(_ url: URL) -> Int? {
        if let port = url.port { return port }
        switch url.scheme?.lowercased() {
        case "http", "ws": return 80
        case "https", "wss": return 443
        default: return nil
        }
    }
}
