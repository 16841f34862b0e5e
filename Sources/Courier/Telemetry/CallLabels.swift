import Foundation
import HTTPTypes
import Tracing

/// The attributes of one HTTP call by OpenTelemetry's conventions, bounded in cardinality: the
/// path template (never the raw path or query), the operation name, the server.
struct CallLabels: Sendable {
    /// The template when the endpoint's is unknown (a raw URL, a generated client).
    static let unknownTemplate = "{unknown}"

    var method: String
    var serverAddress: String
    var serverPort: Int
    var template: String
    var operation: String

    init(request: HTTPRequest, baseURL: URL, operationID: String, context: RequestContext?) {
        method = request.method.rawValue
        // The call's own origin, never a redirect target's: a server must not choose label values.
        let server = context?.facts.origin ?? baseURL
        serverAddress = server.host ?? ""
        serverPort = server.port ?? (server.scheme?.lowercased() == "https" ? 443 : 80)
        let prefix = server.path.hasSuffix("/") ? String(server.path.dropLast()) : server.path
        template = context?.facts.pathTemplate.map { prefix + $0 } ?? Self.unknownTemplate
        operation = operationID
    }

    /// `{method} {url.template}`: the span name.
    var spanName: String { "\(method) \(template)" }

    /// The dimensions every metric of the call carries.
    var dimensions: [(String, String)] {
        [
            ("http.request.method", method), ("server.address", serverAddress), ("server.port", String(serverPort)),
            ("url.template", template), ("courier.operation", operation),
        ]
    }

    /// The value of `error.type` for a failure: the status code for an HTTP error, else the error's kind.
    static func errorType(status: HTTPResponse.Status?, error: (any Error)?) -> String? {
        if let error { return CourierError.from(transportError: error).kind.identifier }
        if let status, status.code >= 400 { return String(status.code) }
        return nil
    }
}

extension CallLabels {
    /// Sets the call's attributes on a span.
    func describe(_ span: any Span) {
        span.attributes["http.request.method"] = method
        span.attributes["server.address"] = serverAddress
        span.attributes["server.port"] = serverPort
        span.attributes["url.template"] = template
        span.attributes["courier.operation"] = operation
    }
}
