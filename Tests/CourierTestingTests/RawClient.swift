import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// How a raw connection ended, as seen by the client.
enum RawEnding: Sendable, Equatable {
    /// The server closed cleanly (EOF).
    case eof
    /// A read or write failed; `errno` is set when the error was a system call error.
    case error(errno: Int32?, description: String)
}

/// What a raw connection has received so far.
struct RawSnapshot: Sendable {
    var bytes: [UInt8] = []
    var ending: RawEnding?
    var timedOut = false

    /// The complete responses in ``bytes``, parsed with `Content-Length` framing.
    var responses: [RawResponse] { RawResponse.parseAll(bytes) }
}

/// A test client that speaks bytes over TCP with NIO, so tests see exactly what went on the wire.
final class RawConnection: Sendable {
    private let channel: any Channel
    private let collector: NIOLoopBound<Collector>

    private init(channel: any Channel, collector: NIOLoopBound<Collector>) {
        self.channel = channel
        self.collector = collector
    }

    /// Connects to 127.0.0.1:`port` on NIO's shared event loop group.
    static func connect(port: Int) async throws -> RawConnection {
        let address = try SocketAddress(ipAddress: "127.0.0.1", port: port)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Collector(eventLoop: channel.eventLoop))
                }
            }
            .connect(to: address)
            .get()
        let collector = try await channel.eventLoop.submit {
            try NIOLoopBound(channel.pipeline.syncOperations.handler(type: Collector.self), eventLoop: channel.eventLoop)
        }.get()
        return RawConnection(channel: channel, collector: collector)
    }

    /// Sends `text` as UTF-8, with `\n` line ends as written (use `\r\n` in requests).
    func send(_ text: String) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: text)).get()
    }

    /// Waits until `done` holds for what arrived, the connection ends, or `timeout` passes.
    func wait(
        timeout: Duration = .seconds(60),
        until done: @escaping @Sendable (RawSnapshot) -> Bool = { _ in false }
    ) async throws -> RawSnapshot {
        let collector = self.collector
        return try await channel.eventLoop.flatSubmit {
            collector.value.wait(timeout: timeout, until: done)
        }.get()
    }

    /// Sends one request and waits for the next complete response on this connection.
    func exchange(_ request: String, timeout: Duration = .seconds(60)) async throws -> RawSnapshot {
        let before = try await wait(timeout: .zero) { _ in true }.responses.count
        try await send(request)
        return try await wait(timeout: timeout) { $0.responses.count > before }
    }

    /// Closes the connection and waits until it is closed.
    func close() async {
        try? await channel.close()
    }
}

/// Collects the bytes of one connection and wakes waiters; lives on the channel's event loop.
private final class Collector: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private struct Waiter {
        let done: @Sendable (RawSnapshot) -> Bool
        let promise: EventLoopPromise<RawSnapshot>
        let timeout: Scheduled<Void>
    }

    private var snapshot = RawSnapshot()
    private var waiters: [Int: Waiter] = [:]
    private var nextWaiter = 0
    private let eventLoop: any EventLoop

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        snapshot.bytes.append(contentsOf: unwrapInboundIn(data).readableBytesView)
        wake()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if snapshot.ending == nil {
            snapshot.ending = .error(errno: (error as? IOError)?.errnoCode, description: "\(error)")
        }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if snapshot.ending == nil { snapshot.ending = .eof }
        wake()
    }

    func wait(timeout: Duration, until done: @escaping @Sendable (RawSnapshot) -> Bool) -> EventLoopFuture<RawSnapshot> {
        if done(snapshot) || snapshot.ending != nil {
            return eventLoop.makeSucceededFuture(snapshot)
        }
        let id = nextWaiter
        nextWaiter += 1
        let promise = eventLoop.makePromise(of: RawSnapshot.self)
        let timer = eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(timeout)) { [self] in
            guard let waiter = waiters.removeValue(forKey: id) else { return }
            var result = snapshot
            result.timedOut = true
            waiter.promise.succeed(result)
        }
        waiters[id] = Waiter(done: done, promise: promise, timeout: timer)
        return promise.futureResult
    }

    private func wake() {
        for (id, waiter) in waiters where waiter.done(snapshot) || snapshot.ending != nil {
            waiters.removeValue(forKey: id)
            waiter.timeout.cancel()
            waiter.promise.succeed(snapshot)
        }
    }
}
