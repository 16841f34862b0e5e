import Foundation
import HTTPTypes

extension Client {
    /// Everything about a client that is not its URL, transport or middlewares; every field has a default.
    public struct Configuration: Sendable {
        /// Header fields added to every request (an endpoint's own fields of the same name win).
        public var defaultHeaders: HTTPFields = [.accept: "application/json"]
        /// Query items added to every request (common parameters such as an app id). Not for secrets.
        public var commonQuery: [QueryItem] = []
        /// Decodes response bodies for every endpoint: swap it to change the format or library in one place.
        public var decoder: any ResponseDecoder = JSONDecoder()
        /// Encodes JSON request bodies.
        public var encoder: any RequestEncoder = JSONEncoder()
        /// Encodes `Encodable` parameters before they are flattened into query items or form fields.
        public var parameterEncoder = JSONEncoder()
        /// The timeout of one attempt of a request, unless the endpoint sets its own.
        public var timeout: Duration = .seconds(60)
        /// The largest response body the client reads; a larger one fails with ``CourierError/Kind/bodyTooLarge``.
        public var maximumBodySize: Int = 16 * 1024 * 1024
        /// Where the server's message is looked for in a JSON error body, in order (dotted paths).
        public var errorMessagePaths: [String] = ["message", "error.message", "error_description", "error", "detail", "msg"]
        /// Sees every 2xx response with its raw body and may return an error that fails the call.
        public var responseValidator: (@Sendable (ValidationInput) -> (any Error)?)?
        /// Whether identical concurrent GETs that may use the cache share one request (a
        /// ``CoalescingMiddleware`` first in the chain).
        public var coalescesIdenticalRequests = true
        /// How many redirects a call follows (see ``RedirectMiddleware``); 0 hands 3xx responses back as they are.
        public var maximumRedirects = 10
        /// The cache policy of endpoints that do not set one.
        public var cachePolicy: CachePolicy = .withoutCache
        /// Where metrics and spans go (see ``TelemetryMiddleware``); the process-wide backends by default.
        public var telemetry = Telemetry()
        /// Header fields and query items whose values never appear in logs, errors or timing files.
        public var redaction = Redaction()

        /// The default configuration.
        public init() {}
    }

    /// What the response validator sees: the endpoint, the response head and the raw body.
    public struct ValidationInput: Sendable {
        /// The endpoint's name.
        public var endpoint: String
        /// The status and header fields.
        public var response: HTTPResponse
        /// The raw body bytes.
        public var body: Data
    }
}

/// Names whose values are secret: they are replaced by `REDACTED` wherever Courier prints or keeps a request.
public struct Redaction: Sendable, Hashable {
    /// Header field names (case-insensitive).
    public var headerNames: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-auth-token", "x-api-key",
    ]
    /// Query item names (case-insensitive).
    public var queryNames: Set<String> = [
        "token", "access_token", "refresh_token", "api_key", "apikey", "key", "password", "secret", "signature",
    ]

    /// The default set.
    public init() {}

    /// Whether a header's value must be hidden.
    public func isSecret(header name: HTTPField.Name) -> Bool {
        headerNames.contains(name.canonicalName) || headerNames.contains(name.rawName.lowercased())
    }

    /// The fields with secret values replaced.
    public func redact(_ fields: HTTPFields) -> HTTPFields {
        var result = HTTPFields()
        for field in fields {
            result.append(isSecret(header: field.name) ? HTTPField(name: field.name, value: "REDACTED") : field)
        }
        return result
    }

    /// The URL or path with the values of secret query items replaced.
    public func redact(url: String) -> String {
        // Looked for in UTF-8: a `Character` scan of every call's URL costs more than the rest.
        guard !queryNames.isEmpty, let questionMark = url.utf8.firstIndex(of: UInt8(ascii: "?")) else { return url }
        let query = url[url.index(after: questionMark)...]
        // Fast path (every call builds its summary): no item is named like a secret, nothing to
        // rewrite, and nothing allocated to find that out.
        var rest = query[...]
        var hasSecret = false
        while !rest.isEmpty, !hasSecret {
            let end = rest.firstIndex(of: "&") ?? rest.endIndex
            hasSecret = isSecretQueryName(rest[..<end].prefix { $0 != "=" })
            rest = end == rest.endIndex ? rest[end...] : rest[rest.index(after: end)...]
        }
        guard hasSecret else { return url }
        let items = query.split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
            let name = item.prefix { $0 != "=" }
            return isSecretQueryName(name) ? "\(name)=REDACTED" : String(item)
        }
        return url[..<questionMark] + "?" + items.joined(separator: "&")
    }

    private func isSecretQueryName(_ name: Substring) -> Bool {
        // Percent-decoding (Foundation, slow) only for names that are encoded.
        let decoded = name.contains("%") ? String(name).removingPercentEncoding ?? String(name) : String(name)
        return queryNames.contains(decoded.lowercased())
    }
}
