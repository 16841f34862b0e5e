import Courier
import Foundation
import HTTPTypes

/// A write as the outbox keeps it in its row (JSON): the endpoint's request without the client's
/// defaults (see `DeferredRequest`), any credential field, or a secret, and with an
/// `Idempotency-Key` fixed when it was kept, so each send of it is the same write to the server.
struct KeptRequest: Sendable, Codable, Hashable {
    var operationName: String
    /// The endpoint's path template, for metrics (`/users/{}/posts`).
    var pathTemplate: String
    var method: String
    /// The path and query relative to the client's base URL, encoded.
    var target: String
    /// The endpoint's own header fields, with `Idempotency-Key` and the body's content type, as
    /// name and value pairs in order.
    var headers: [[String]]
    var timeoutMilliseconds: Int64?
    var requiresAuthentication: Bool

    /// The `Idempotency-Key` it is sent with, fixed when it was kept.
    var idempotencyKey: String? { value(of: "idempotency-key") }

    /// The body's content type, as the endpoint gave it.
    var contentType: String? { value(of: "content-type") }

    /// Keeps `deferred`: its credential fields and those on the client's secret list (`redaction`)
    /// dropped (the chain adds credentials when it is sent), whatever the app made of that list,
    /// and a new `Idempotency-Key` unless the endpoint has its own.
    /// - Throws: ``CourierError/Kind/invalidRequest`` when its query carries a secret: a kept
    ///   request is written to disk, and a secret never is.
    init(_ deferred: DeferredRequest, redaction: Redaction) throws(CourierError) {
        if let name = redaction.firstSecretQueryName(in: deferred.target) {
            var error = CourierError(
                .invalidRequest,
                detail: "the query item '\(name)' is a secret, which a kept request never writes to disk; send it in a header field the chain adds")
            error.endpoint = deferred.operationName
            throw error
        }
        var headers: [[String]] = []
        for field in deferred.headerFields where !redaction.isCredential(header: field.name) {
            headers.append([field.name.rawName, field.value])
        }
        if !headers.contains(where: { $0.first?.lowercased() == "idempotency-key" }) {
            headers.append(["Idempotency-Key", IdempotencyKey.generated.valueForCall()])
        }
        self.init(
            operationName: deferred.operationName, pathTemplate: deferred.pathTemplate, method: deferred.method.rawValue,
            target: deferred.target, headers: headers, timeoutMilliseconds: deferred.timeout.map { Int64($0.inSeconds * 1000) },
            requiresAuthentication: deferred.requiresAuthentication)
    }

    init(
        operationName: String, pathTemplate: String, method: String, target: String, headers: [[String]], timeoutMilliseconds: Int64?,
        requiresAuthentication: Bool
    ) {
        self.operationName = operationName
        self.pathTemplate = pathTemplate
        self.method = method
        self.target = target
        self.headers = headers
        self.timeoutMilliseconds = timeoutMilliseconds
        self.requiresAuthentication = requiresAuthentication
    }

    /// The request to send (a method the row doesn't name sends as POST, as it was kept).
    var deferred: DeferredRequest {
        var fields = HTTPFields()
        for pair in headers where pair.count == 2 {
            if let name = HTTPField.Name(pair[0]) { fields.append(HTTPField(name: name, value: pair[1])) }
        }
        return DeferredRequest(
            operationName: operationName, pathTemplate: pathTemplate, method: HTTPRequest.Method(method) ?? .post, target: target,
            headerFields: fields, timeout: timeoutMilliseconds.map { .milliseconds($0) }, requiresAuthentication: requiresAuthentication)
    }

    private func value(of lowercasedName: String) -> String? {
        headers.first { $0.count == 2 && $0[0].lowercased() == lowercasedName }?[1]
    }
}
