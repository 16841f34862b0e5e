import Foundation
import HTTPTypes

extension Client {
    /// Checks the status and, when `checksContent` (not for a download, whose body is in a file),
    /// runs the response validator; every failure keeps its evidence. A `303` to a write for its
    /// origin only is a success: the server took the write (see ``RedirectMiddleware``).
    func validate(
        _ head: HTTPResponse, body: Data, endpoint: String, source: ResponseSource, notRetriedBecause: String? = nil,
        checksContent: Bool = true, deliversOnlyToOrigin: Bool = false
    ) throws(CourierError) {
        guard head.status.kind == .successful || deliversOnlyToOrigin && head.status == .seeOther else {
            let message = ServerMessage.extract(from: body, paths: configuration.errorMessagePaths)
            throw CourierError(
                message == nil ? .unacceptableStatus : .server,
                detail: Self.statusDetail(head.status, source: source) + (notRetriedBecause.map { " (not retried: \($0))" } ?? ""),
                serverMessage: message, status: head.status, responseHeaders: head.headerFields, body: body
            )
        }
        if checksContent, head.status.kind == .successful, let validator = configuration.responseValidator,
            let rejection = validator(ValidationInput(endpoint: endpoint, response: head, body: body))
        {
            let message = (rejection as? any LocalizedError)?.errorDescription
            throw CourierError(
                .rejected, detail: "The response validator rejected the response: \(rejection)",
                serverMessage: message, status: head.status, responseHeaders: head.headerFields, body: body,
                underlying: rejection
            )
        }
    }

    /// What a failed status means, without a dangling space when the reason phrase is empty; a 504
    /// the cache answered itself (nothing stored, and the policy forbids the network) says so.
    static func statusDetail(_ status: HTTPResponse.Status, source: ResponseSource) -> String {
        if source == .cache, status == .gatewayTimeout {
            return "Nothing is stored for this request and its cache policy forbids the network (504 from the cache)"
        }
        let reason = status.reasonPhrase.isEmpty ? "" : " " + status.reasonPhrase
        return "The server answered \(status.code)\(reason)"
    }

    /// The error for a body the endpoint could not decode, with the response as evidence.
    @usableFromInline
    func decodingFailure(_ error: any Error, of call: EndpointCall) -> CourierError {
        let (head, endpoint) = (call.head, call.name)
        let failure: CourierError
        if let envelope = error as? EnvelopeFailure {
            failure = CourierError(
                .envelope, detail: "The response envelope reported an error (code \(envelope.code ?? "none"))",
                serverMessage: envelope.message, status: head.status, responseHeaders: head.headerFields, body: call.received,
                underlying: envelope
            )
        } else if let error = error as? CourierError {
            failure = error
        } else {
            // A 200 HTML page where data was expected is most often not the API's answer at all.
            let isHTML = head.headerFields[.contentType]?.lowercased().hasPrefix("text/html") == true
            let hint = isHTML ? " (the answer is an HTML page: a Wi-Fi sign-in page, a proxy's or an error page?)" : ""
            failure = CourierError(
                .decodingFailed, detail: "\(endpoint): \(describeDecodingFailure(error))\(hint)",
                status: head.status, responseHeaders: head.headerFields, body: call.received, underlying: error
            )
        }
        return failure.filling(endpoint: endpoint, request: summary(of: call), redaction: configuration.redaction)
    }
}

/// A sentence naming what went wrong and where, e.g. `missing key 'name' at [2]`.
func describeDecodingFailure(_ error: any Error) -> String {
    guard let error = error as? DecodingError else { return String(describing: error) }
    func path(_ codingPath: [any CodingKey]) -> String {
        let text = codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
        let trimmed = text.hasPrefix(".") ? String(text.dropFirst()) : text
        return trimmed.isEmpty ? "the top level" : trimmed
    }
    switch error {
    case .keyNotFound(let key, let context):
        return "missing key '\(key.stringValue)' at \(path(context.codingPath + [key]))"
    case .valueNotFound(let type, let context):
        return "null or missing \(type) at \(path(context.codingPath))"
    case .typeMismatch(let type, let context):
        return "expected \(type) at \(path(context.codingPath)): \(context.debugDescription)"
    case .dataCorrupted(let context):
        return "invalid data at \(path(context.codingPath)): \(context.debugDescription)"
    @unknown default:
        return String(describing: error)
    }
}

/// Finds the server's message in a JSON error body.
enum ServerMessage {
    /// The first non-empty string found at one of the dotted `paths`, or nil when the body is not JSON.
    static func extract(from body: Data, paths: [String]) -> String? {
        guard !body.isEmpty, let first = body.first(where: { !$0.isWhitespaceByte }), first == UInt8(ascii: "{"),
            let json = try? JSON(data: body)
        else { return nil }
        for path in paths {
            if let text = json[path: path]?.string?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty {
                return text
            }
        }
        return nil
    }
}

extension UInt8 {
    fileprivate var isWhitespaceByte: Bool { self == 0x20 || self == 0x09 || self == 0x0A || self == 0x0D }
}
