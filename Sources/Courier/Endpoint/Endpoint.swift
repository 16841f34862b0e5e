import Foundation
import HTTPTypes

/// A request that names its response type: method, path, parameters, body, headers, timeout, cache policy.
///
/// Everything but ``path`` has a default. Write endpoints as small structs, or as an enum of actions
/// that switches over `self` to give the method, path and parameters.
///
/// ```swift
/// struct Friends: Endpoint {
///     typealias Response = [User]
///     let userID: Int
///     var path: EndpointPath { "/users/\(userID)/friends" }
/// }
/// ```
public protocol Endpoint<Response>: Sendable {
    /// The value a successful call returns.
    associatedtype Response: Sendable

    /// A short, bounded name for logs, metrics and errors (the operation id); defaults to the type name.
    ///
    /// Named so that an endpoint's own `name` property (a path parameter, say) can't replace it with
    /// user data: only an endpoint that means to set it writes `operationName`.
    var operationName: String { get }
    /// The HTTP method; defaults to GET.
    var method: HTTPRequest.Method { get }
    /// The path relative to the client's base URL, with interpolated values escaped.
    var path: EndpointPath { get }
    /// Parameters placed by method: the query for GET, HEAD and DELETE, a JSON body for the others.
    var parameters: Parameters { get }
    /// Query items added to the URL whatever the method.
    var query: Parameters { get }
    /// An explicit body; wins over ``parameters`` for methods that carry a body.
    var body: RequestBody? { get }
    /// Extra header fields for this endpoint.
    var headers: HTTPFields { get }
    /// A timeout for this endpoint, overriding the client's default.
    var timeout: Duration? { get }
    /// A cache policy for this endpoint, overriding the client's default.
    var cachePolicy: CachePolicy? { get }
    /// Whether sending the request twice has the same effect as once (retries rely on it);
    /// defaults to true for GET, HEAD, PUT, DELETE, OPTIONS and TRACE.
    var isIdempotent: Bool { get }
    /// Whether the client's credentials are added to this request; defaults to true.
    var requiresAuthentication: Bool { get }
    /// An `Idempotency-Key` sent with the request, the same on every attempt of a call, which lets a
    /// retry policy retry a POST or PATCH (see ``IdempotencyKey``); defaults to nil (none).
    var idempotencyKey: IdempotencyKey? { get }

    /// Turns a successful response body into ``Response``.
    func decode(_ body: Data, context: DecodingContext) throws -> Response
}

extension Endpoint {
    /// The type name without its module, e.g. `FriendsEndpoints.List`; for enum endpoints, the type and the case, e.g. `ThreadRequest.delete`.
    public var operationName: String { EndpointTypeName.of(self).name(of: self) }
    /// GET.
    public var method: HTTPRequest.Method { .get }
    /// No parameters.
    public var parameters: Parameters { .none }
    /// No query items.
    public var query: Parameters { .none }
    /// No explicit body.
    public var body: RequestBody? { nil }
    /// No extra header fields.
    public var headers: HTTPFields { [:] }
    /// The client's default timeout.
    public var timeout: Duration? { nil }
    /// The client's default cache policy.
    public var cachePolicy: CachePolicy? { nil }
    /// True for GET, HEAD, PUT, DELETE, OPTIONS and TRACE.
    public var isIdempotent: Bool { method.isIdempotent }
    /// True.
    public var requiresAuthentication: Bool { true }
    /// Nil: no `Idempotency-Key`.
    public var idempotencyKey: IdempotencyKey? { nil }
}

extension Endpoint where Response: Decodable {
    /// Decodes the body with the client's decoder; `Data` gets the raw bytes and ``Empty`` ignores the body.
    ///
    /// One default with runtime checks rather than three constrained overloads, so that the compiler
    /// can always infer `Response` (overloads make generic endpoints ambiguous). Inlinable, so in the
    /// app's module the casts are resolved for the concrete type at compile time.
    @inlinable
    public func decode(_ body: Data, context: DecodingContext) throws -> Response {
        if let raw = body as? Response { return raw }
        if let empty = Empty() as? Response { return empty }
        return try context.decode(Response.self, from: body)
    }
}

extension HTTPRequest.Method {
    /// Whether ``Endpoint/parameters`` go into the query for this method rather than the body.
    var placesParametersInQuery: Bool {
        switch self {
        case .get, .head, .delete: true
        default: false
        }
    }
}
