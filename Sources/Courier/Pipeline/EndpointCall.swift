import Foundation
import HTTPTypes
import OpenAPIRuntime

/// One call of an endpoint: the one value its steps fill in, from the endpoint's values to the
/// validated response the generic shell decodes.
///
/// A call is split into a small generic shell (read the endpoint's values, decode the body), which
/// is `@inlinable` so an app's module specializes it for its own endpoint types, and a non-generic
/// core (build, middleware chain, transport, validation) compiled once in Courier. Unspecialized
/// generic code pays for every property read and value copy through witness tables and runtime
/// metadata.
@usableFromInline
struct EndpointCall: Sendable {
    // MARK: The endpoint's values, read once

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

    // MARK: How it runs, chosen by its entry point

    /// The cache policy in force: the call's, else the endpoint's, else the client's.
    @usableFromInline var policy: CachePolicy
    /// Where a successful response's body goes: memory to decode, a file, or the caller unread.
    var destination = BodyDestination.memory
    /// Where an upload reports the bytes of its body as the transport reads them.
    var uploadProgress: ProgressReporter?
    /// The user the call must be made for (a deferred write): when another user, or nobody, is
    /// signed in as it starts, it fails with `anotherUserSignedIn` instead of sending their credentials.
    var requiredIdentity: CallIdentity? = nil
    /// Whether the call's write goes only to its origin (see ``CallFacts/deliversOnlyToOrigin``).
    var deliversOnlyToOrigin = false

    // MARK: Filled in as it runs

    /// When the call began (a response's duration runs from here to its decoded value).
    @usableFromInline var started = ContinuousClock.now
    /// The request, once built. (Unset fields are nil, not placeholders: a request or response
    /// head allocates, and a small call's allocations are counted.)
    var request: HTTPRequest?
    /// The request body, once built.
    var requestBody: BuiltBody?
    /// The response head, once the chain answered.
    var answeredHead: HTTPResponse?
    /// Where the response came from: the network unless a cache answered.
    @usableFromInline var source = ResponseSource.network
    /// How many times the transport was called for it.
    @usableFromInline var attempts = 0
    /// Why a status a retry would have retried was not; the status's error says so.
    var notRetriedBecause: String?
    /// The response body read at the edge: a decoded call's, or an error status's evidence.
    @usableFromInline var received = Data()
    /// A download's body size (its bytes are in its file).
    var downloadedSize: Int64?
    /// A streamed call's body, handed to the caller unread.
    var stream: HTTPBody?

    /// Reads an endpoint's values; its cache policy is `cachePolicy`, else the endpoint's, else `fallback`.
    @inlinable
    init(_ endpoint: some Endpoint, cachePolicy: CachePolicy?, otherwise fallback: CachePolicy) {
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
        policy = cachePolicy ?? endpoint.cachePolicy ?? fallback
        if let key = endpoint.idempotencyKey { add(key) }
    }

    /// The response head of a call that ran: what ``Client/run(_:)`` returns has one.
    @usableFromInline var head: HTTPResponse { answeredHead ?? HTTPResponse(status: .internalServerError) }
}

/// Where a successful response's body goes at the client's edge.
enum BodyDestination: Sendable {
    /// Gathered in memory to decode, within the size limit.
    case memory
    /// Streamed into a file.
    case file(FileDownload)
    /// Handed to the caller as it arrives.
    case caller

    /// Whether the body bypasses memory (and so coalescing, the size limit and the response validator).
    var isTransfer: Bool {
        if case .memory = self { false } else { true }
    }
}
