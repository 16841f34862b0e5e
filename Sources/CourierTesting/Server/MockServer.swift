import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL

/// A real HTTP server in the test process, like OkHttp's MockWebServer: HTTP/1.1, or HTTPS over
/// HTTP/1.1 and HTTP/2 (see ``MockTLS``).
///
/// Register routes, point the client under test at ``baseURL``, then assert on
/// ``recordedRequests`` and the connection counters. Always call ``shutdown()`` at the end.
///
/// ```swift
/// let server = try await MockServer.start()
/// server.route("GET", "/users/*", respond: .json(#"{"id":1}"#))
/// defer { Task { try await server.shutdown() } }
/// ```
public final class MockServer: Sendable {
    /// The default cap on request bodies: 64 MiB.
    public static let defaultMaxRequestBodySize = 64 * 1024 * 1024

    /// The host the server listens on.
    public let host: String
    /// The port the server listens on; the same after ``goDown()`` and ``comeUp()``.
    public let port: Int
    /// `http://HOST:PORT` (`https://` with TLS), without a trailing slash.
    public let baseURL: URL
    /// How the server serves HTTPS; nil for plain HTTP/1.1.
    public let tls: MockTLS?

    let core: MockServerCore
    private let group: MultiThreadedEventLoopGroup
    private let context: NIOSSLContext?

    private init(host: String, port: Int, baseURL: URL, tls: MockTLS?, context: NIOSSLContext?, core: MockServerCore, group: MultiThreadedEventLoopGroup) {
        self.host = host
        self.port = port
        self.baseURL = baseURL
        self.tls = tls
        self.context = context
        self.core = core
        self.group = group
    }

    /// Starts listening on `host` and `port` (0 picks a free port) with its own one-thread event loop.
    ///
    /// - Parameters:
    ///   - host: The address to bind, `127.0.0.1` by default.
    ///   - port: The port to bind, or 0 for a free one.
    ///   - maxRequestBodySize: Larger request bodies are answered with 413 and the connection is closed.
    ///   - tls: Serve HTTPS this way (``MockTLS/http1``, ``MockTLS/http2``); nil for plain HTTP/1.1.
    /// - Returns: A running server.
    /// - Throws: The bind error, for example when the port is taken, or a TLS configuration error.
    public static func start(
        host: String = "127.0.0.1",
        port: Int = 0,
        maxRequestBodySize: Int = defaultMaxRequestBodySize,
        tls: MockTLS? = nil
    ) async throws -> MockServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let core = MockServerCore(maxRequestBodySize: maxRequestBodySize)
        do {
            let context = try tls?.makeContext()
            // A port picked without SO_REUSEADDR has no connection lingering in TIME_WAIT, so
            // ``goDown()`` can hold it. Set once bound: the connections it accepts inherit it, so
            // their TIME_WAIT after ``goDown()`` keeps neither the hold nor ``comeUp()`` out.
            let listener = try await bind(
                host: host, port: port, reusingAddress: port != 0, group: group, core: core, tls: tls, context: context)
            try await listener.setOption(.socketOption(.so_reuseaddr), value: 1)
            guard let boundPort = listener.localAddress?.port else { throw MockServerError.noLocalAddress }
            let urlHost = host.contains(":") ? "[\(host)]" : host
            guard let url = URL(string: "\(tls == nil ? "http" : "https")://\(urlHost):\(boundPort)") else {
                throw MockServerError.badURL(host: host, port: boundPort)
            }
            _ = core.finishBinding(listener)
            return MockServer(host: host, port: boundPort, baseURL: url, tls: tls, context: context, core: core, group: group)
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// The URL of `path` on this server, such as `url("/users?page=2")`; ``baseURL`` if `path` makes no valid URL.
    public func url(_ path: String) -> URL {
        URL(string: baseURL.absoluteString + path) ?? baseURL
    }

    /// Closes the listener and every connection, then stops the event loop; safe to call twice.
    ///
    /// Returns promptly even with ``Fault/neverAnswer`` connections or pending delays; a route
    /// handler still running is not awaited, and its response is dropped.
    public func shutdown() async throws {
        guard let open = core.beginShutdown() else { return }
        await Self.close(open.listener, open.connections)
        core.releasePort()
        try await group.shutdownGracefully()
    }

    /// Stops serving: closes the listening socket, so new connections are refused, and every open connection.
    ///
    /// The port stays reserved until ``comeUp()`` (bound, not listening), so no other server in the
    /// process can take it meanwhile and answer in this one's place.
    /// - Throws: ``MockServerError`` after ``shutdown()``.
    public func goDown() async throws {
        let open = try core.takeDown()
        // Held as soon as the listener is closed, before the connections are.
        try? await open.listener?.close()
        core.holdPort(PortHold(host: host, port: port))
        await Self.close(nil, open.connections)
    }

    /// Listens again on the same host and port after ``goDown()``; does nothing if already up.
    ///
    /// - Throws: The bind error, or ``MockServerError`` after ``shutdown()``.
    public func comeUp() async throws {
        guard try core.beginBinding() else { return }
        core.releasePort()
        let listener: any Channel
        do {
            listener = try await Self.bind(host: host, port: port, reusingAddress: true, group: group, core: core, tls: tls, context: context)
        } catch {
            core.bindingFailed()
            throw error
        }
        if !core.finishBinding(listener) {
            try? await listener.close()
        }
    }

    private static func close(_ listener: (any Channel)?, _ connections: [any Channel]) async {
        try? await listener?.close()
        for connection in connections {
            connection.close(promise: nil)
        }
        for connection in connections {
            try? await connection.closeFuture.get()
        }
    }

    private static func bind(
        host: String,
        port: Int,
        reusingAddress: Bool,
        group: MultiThreadedEventLoopGroup,
        core: MockServerCore,
        tls: MockTLS?,
        context: NIOSSLContext?
    ) async throws -> any Channel {
        try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: reusingAddress ? 1 : 0)
            .serverChannelOption(.backlog, value: 128)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                Self.initialize(channel, core: core, tls: tls, context: context)
            }
            .bind(host: host, port: port)
            .get()
    }

    /// Sets up one accepted connection; a failure makes NIO close it (the server is going down).
    private static func initialize(_ channel: any Channel, core: MockServerCore, tls: MockTLS?, context: NIOSSLContext?) -> EventLoopFuture<Void> {
        guard let id = core.register(channel) else { return channel.eventLoop.makeFailedFuture(MockServerError.notAccepting) }
        channel.closeFuture.whenComplete { _ in core.unregister(id) }
        @Sendable func http1(_ channel: any Channel) -> EventLoopFuture<Void> {
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.configureHTTPServerPipeline(withPipeliningAssistance: true, withErrorHandling: true)
                try channel.pipeline.syncOperations.addHandler(MockConnectionHandler(core: core, connectionID: id))
            }
        }
        guard let tls, let context else { return http1(channel) }
        do {
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        guard tls.offersHTTP2 else { return http1(channel) }
        // Each HTTP/2 stream gets a handler of its own, speaking HTTP/1 parts; every stream of a
        // connection records the connection's id.
        return channel.configureHTTP2SecureUpgrade(
            h2ChannelConfigurator: { channel in
                channel.configureHTTP2Pipeline(mode: .server) { stream in
                    stream.eventLoop.makeCompletedFuture {
                        try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                        try stream.pipeline.syncOperations.addHandler(MockConnectionHandler(core: core, connectionID: id))
                    }
                }.map { _ in }
            },
            http1ChannelConfigurator: http1
        )
    }
}
