import Foundation
import HTTPTypes

extension Client {
    /// Everything about a client that is not its URL, transport or middlewares; every field has a default.
    public struct Configuration: Sendable {
        /// The timeout of an attempt that nothing else gives one: a client's unless set, and a call's
        /// outside a client (a generated client's without a context).
        package static let defaultTimeout = Duration.seconds(60)
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
        public var timeout = defaultTimeout
        /// The largest response body the client reads; a larger one fails with ``CourierError/Kind/bodyTooLarge``.
        public var maximumBodySize: Int = 16 * 1024 * 1024
        /// Where the server's message is looked for in a JSON error body, in order (dotted paths).
        public var errorMessagePaths: [String] = ["message", "error.message", "error_description", "error", "detail", "msg"]
        /// Sees every 2xx response with its raw body and may return an error that fails the call.
        public var responseValidator: (@Sendable (ValidationInput) -> (any Error)?)?
        /// Whether identical GETs in flight at the same time that may use the cache share one request
        /// (the first caller's), every caller getting the answer.
        public var coalescesIdenticalRequests = true
        /// How many redirects a call follows (see ``RedirectMiddleware``); 0 hands 3xx responses back as
        /// they are. A ``RedirectMiddleware`` in the client's middlewares replaces this setting: the
        /// client then adds no redirect step of its own, and the listed one follows its own settings.
        public var maximumRedirects = 10
        /// Whether a redirect from `https` to plain `http` is followed; off, it fails the call with
        /// ``CourierError/Kind/redirect``. Even when on, a request body never goes from https to http.
        public var allowsInsecureRedirects = false
        /// The cache policy of endpoints that do not set one.
        public var cachePolicy: CachePolicy = .withoutCache
        /// Where metrics and spans go (see ``TelemetryMiddleware``); the process-wide backends by default.
        public var telemetry = Telemetry()
        /// The secret list: header fields and query items whose values never appear in logs or
        /// errors, never go to another origin, and are never stored in clear (see ``Redaction``).
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
