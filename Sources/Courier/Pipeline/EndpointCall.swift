import Foundation
import HTTPTypes

/// What a call needs from an endpoint, read once: everything but decoding.
///
/// A call is split into a small generic shell (read these values, decode the body), which is
/// `@inlinable` so an app's module specializes it for its own endpoint types, and a non-generic core
/// (build, middleware chain, transport, validation) compiled once in Courier. Unspecialized generic
/// code pays for every property read and value copy through witness tables and runtime metadata.
@usableFromInline
struct EndpointCall: Sendable {
    @usableFromInline var name: String
    @usableFromInline var pathTemplate: String
    @usableFromInline var method: HTTPRequest.Method
    @usableFromInline var path: EndpointPath
    @usableFromInline var query: Parameters
    @usableFromInline var parameters: Parameters
    @usableFromInline var body: RequestBody?
    @usableFromInline var headers: HTTPFields
    @usableFromInline var timeout: Duration?
    @usableFromInline var isIdempotent: Bool
    @usableFromInline var requiresAuthentication: Bool
    /// A path and query relative to the base URL, already encoded, sent instead of ``path``, ``query``
    /// and query-placed ``parameters`` (the next page a server linked to).
    @usableFromInline var target: String? = nil
    /// The user the call must be made for (an outbox's write): when another user, or nobody, is
    /// signed in as it starts, it fails with `anotherUserSignedIn` instead of sending their credentials.
    var requiredIdentity: CallIdentity? = nil
    /// Whether the call's write goes only to its origin (see ``RequestContext/deliversOnlyToOrigin``).
    var deliversOnlyToOrigin = false

    /// Reads an endpoint's values.
    @inlinable
    init(_ endpoint: some Endpoint) {
        name = endpoint.operationName
        method = endpoint.method
        path = endpoint.path
        pathTemplate = path.template
        query = endpoint.query
        parameters = endpoint.parameters
        body = endpoint.body
        headers = endpoint.headers
        timeout = endpoint.timeout
        isIdempotent = endpoint.isIdempotent
        requiresAuthentication = endpoint.requiresAuthentication
        if let key = endpoint.idempotencyKey { add(key) }
    }
}
