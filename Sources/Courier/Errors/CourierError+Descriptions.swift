import Foundation
import HTTPTypes

extension CourierError: LocalizedError {
    /// The sentence to show a user: "No Internet connection", the server's message, or "Something went wrong".
    public var errorDescription: String? {
        switch family {
        case .noConnection: "No Internet connection"
        case .server: serverMessage ?? "Something went wrong"
        case .other: kind == .cancelled ? "Cancelled" : "Something went wrong"
        }
    }

    /// The technical reason, for logs and bug reports.
    public var failureReason: String? { detail }
}

extension CourierError: CustomStringConvertible {
    /// A one-line technical description with the evidence: kind, endpoint, request, status, detail, body snippet.
    public var description: String {
        var parts = ["CourierError.\(kind)"]
        if let endpoint { parts.append("endpoint=\(endpoint)") }
        if let request { parts.append("request=\(request)") }
        if let status { parts.append("status=\(status.code)") }
        parts.append("detail=\(redaction.redact(text: detail))")
        if let serverMessage { parts.append("serverMessage=\(serverMessage)") }
        if let bodySnippet, !bodySnippet.isEmpty { parts.append("body=\(bodySnippet.prefix(200))") }
        if let underlying { parts.append("underlying=\(redaction.redact(text: String(describing: underlying)))") }
        return parts.joined(separator: " ")
    }
}

extension CourierError: CustomReflectable {
    /// The evidence as ``description`` shows it: `dump` and debuggers never see a secret.
    public var customMirror: Mirror {
        var children: [(label: String?, value: Any)] = [("kind", kind), ("detail", redaction.redact(text: detail))]
        if let endpoint { children.append(("endpoint", endpoint)) }
        if let request { children.append(("request", request)) }
        if let status { children.append(("status", status.code)) }
        if let responseHeaders { children.append(("responseHeaders", redaction.redact(responseHeaders))) }
        if let serverMessage { children.append(("serverMessage", serverMessage)) }
        if let bodySnippet { children.append(("bodySnippet", bodySnippet)) }
        if let underlying { children.append(("underlying", redaction.redact(text: String(describing: underlying)))) }
        return Mirror(self, children: children, displayStyle: .struct)
    }
}
