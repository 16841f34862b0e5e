import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Sends endpoints to one backend: builds the request, runs the middleware chain and the transport,
/// validates the response and decodes it.
///
/// A client is a small `Sendable` value: make one per backend (API, auth, analytics) and hand it to
/// the services that use it.
///
/// ```swift
/// let client = Client(baseURL: URL(string: "https://api.example.com")!)
/// let friends = try await client.send(Friends(userID: 42))
/// ```
///
/// Middlewares run in array order: the first one sees the request first and the response last.
///
/// No order of Courier's middlewares files one user's cached response under another: who a call is
/// for is read from the ``CredentialsMiddleware``'s provider before the chain runs. Without one, a
/// response whose request left the chain with credentials (added by the app's own middleware) is
/// not cached; a chain that refreshes tokens without a ``CredentialsMiddleware`` can never cache
/// them, and its cache logs an error the first time it leaves one out.
public struct Client: Sendable {
    /// The URL every endpoint path is relative to.
    public var baseURL: URL
    /// What sends requests over the network.
    public var transport: any ClientTransport {
        didSet { chain = Self.fold(middlewares, configuration, transport, coalescing) }
    }
    /// The middleware chain, outermost first.
    public var middlewares: [any ClientMiddleware] {
        didSet {
            credentials = Self.credentialProvider(in: middlewares)
            chain = Self.fold(middlewares, configuration, transport, coalescing)
        }
    }
    /// The provider of the chain's ``CredentialsMiddleware``: who a call is made for is read from it
    /// before any middleware runs.
    var credentials: (any CredentialProvider)?
    /// Headers, query items, coders, limits, timeout and policies.
    public var configuration: Configuration {
        didSet { chain = Self.fold(middlewares, configuration, transport, coalescing) }
    }
    /// Shares identical GETs in flight, first in the chain; copies of this client share its table.
    let coalescing = CoalescingMiddleware()
    /// The steps a call runs through, folded into one function (see ``CallChain``).
    var chain: CallChain
    /// Work the chain runs after its caller has an answer (the cache's background revalidation),
    /// shared by copies; nil in the copy whose chain runs it, so the work never keeps its own
    /// client alive.
    var backgroundWork: BackgroundWork? = BackgroundWork()

    /// Creates a client for a base URL.
    /// - Parameters:
    ///   - baseURL: The URL endpoint paths are relative to (may include a path prefix such as `/v1`).
    ///   - transport: The transport; defaults to URLSession.
    ///   - middlewares: The middleware chain, outermost first.
    ///   - configure: Changes the ``Configuration`` (everything else) from its defaults.
    public init(
        baseURL: URL,
        transport: any ClientTransport = URLSessionTransport(),
        middlewares: [any ClientMiddleware] = [],
        configure: (inout Configuration) -> Void = { _ in }
    ) {
        self.baseURL = baseURL
        self.transport = transport
        self.middlewares = middlewares
        self.credentials = Self.credentialProvider(in: middlewares)
        var configuration = Configuration()
        configure(&configuration)
        self.configuration = configuration
        self.chain = Self.fold(middlewares, configuration, transport, coalescing)
    }

    /// The chain of a client with these parts (see ``CallChain``).
    private static func fold(
        _ middlewares: [any ClientMiddleware], _ configuration: Configuration, _ transport: any ClientTransport,
        _ coalescing: CoalescingMiddleware
    ) -> CallChain {
        CallChain(middlewares, configuration, coalescing: coalescing, end: ChainEnd(transport: transport, configuration: configuration))
    }

    private static func credentialProvider(in middlewares: [any ClientMiddleware]) -> (any CredentialProvider)? {
        middlewares.lazy.compactMap { ($0 as? CredentialsMiddleware)?.provider }.first
    }

    /// Waits until the work this client (or a copy) started in the background has finished, such as
    /// revalidating a stale cached response.
    public func waitForBackgroundWork() async {
        await backgroundWork?.waitUntilIdle()
    }

    /// Cancels the work this client (or a copy) runs in the background.
    public func cancelBackgroundWork() {
        backgroundWork?.cancelAll()
    }

    /// Sends an endpoint and returns its decoded value.
    /// - Throws: ``CourierError`` for every failure, including cancellation.
    @inlinable
    public func send<E: Endpoint>(_ endpoint: E, cachePolicy: CachePolicy? = nil) async throws(CourierError) -> E.Response {
        try await perform(endpoint, cachePolicy: cachePolicy).response.value
    }

    /// Sends an endpoint and returns the decoded value with the response's status, headers, source and timing.
    /// - Throws: ``CourierError`` for every failure, including cancellation.
    @inlinable
    public func response<E: Endpoint>(
        for endpoint: E,
        cachePolicy: CachePolicy? = nil
    ) async throws(CourierError) -> Response<E.Response> {
        try await perform(endpoint, cachePolicy: cachePolicy).response
    }

    /// One whole call: the non-generic ``run(_:)`` (build, chain, send, validate), then decoding.
    /// The cache policy is `cachePolicy`, else the endpoint's, else the client's. Returns the raw
    /// body too (update streams compare it).
    @inlinable
    func perform<E: Endpoint>(_ endpoint: E, cachePolicy: CachePolicy?) async throws(CourierError) -> (response: Response<E.Response>, body: Data) {
        let call = try await run(EndpointCall(endpoint, cachePolicy: cachePolicy, otherwise: configuration.cachePolicy))
        return try decode(call, for: endpoint)
    }

    /// The endpoint's value from a call that ran, with the response's metadata (the report).
    @inlinable
    func decode<E: Endpoint>(_ call: EndpointCall, for endpoint: E) throws(CourierError) -> (response: Response<E.Response>, body: Data) {
        let value: E.Response
        do {
            value = try endpoint.decode(call.received, context: DecodingContext(decoder: configuration.decoder, response: call.head))
        } catch {
            throw decodingFailure(error, of: call)
        }
        return (response(value, of: call, bodySize: call.received.count), call.received)
    }
}
