import NIOCore
import NIOHTTP1

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Serves one connection: collects each request, records it, asks the routes, writes the answer.
///
/// Lives on the connection's event loop. `HTTPServerPipelineHandler` in front of it makes sure
/// only one request is in flight at a time, so keep-alive and pipelined requests are answered in order.
final class MockConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let core: MockServerCore
    private let connectionID: Int
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()
    private var bodyTooLarge = false
    /// The body's length, and a sink's hash, taken as it arrives (a sink keeps nothing else).
    private var digest = BodyDigest()
    private var keepsBody = true
    /// Delayed writes still pending; cancelled when the connection goes away.
    private var scheduled: [Scheduled<Void>] = []

    init(core: MockServerCore, connectionID: Int) {
        self.core = core
        self.connectionID = connectionID
    }

    // One handler per HTTP/1.1 connection or HTTP/2 stream: what ``MockServer/streamsOpen`` counts.
    func handlerAdded(context: ChannelHandlerContext) {
        core.streamOpened()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        core.streamClosed()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body.clear()
            bodyTooLarge = false
            keepsBody = core.keepsBody(method: head.method.rawValue, path: RecordedRequest.split(head.uri).path)
            digest = BodyDigest(hashes: !keepsBody)
        case .body(var chunk):
            digest.update(chunk.readableBytesView)
            guard keepsBody, !bodyTooLarge else { return }
            if body.readableBytes + chunk.readableBytes > core.maxRequestBodySize {
                bodyTooLarge = true
                body = ByteBuffer()
            } else {
                body.writeBuffer(&chunk)
            }
        case .end:
            guard let head else { return }
            self.head = nil
            requestEnded(head, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelScheduled()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func requestEnded(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let request = RecordedRequest(
            head: head,
            body: Array(body.readableBytesView),
            digest: digest,
            connectionID: connectionID
        )
        body.clear()
        core.record(request)
        let exchange = MockExchange(head: head, forceClose: bodyTooLarge)
        if bodyTooLarge {
            let limit = core.maxRequestBodySize
            send(.message("request body larger than \(limit) bytes", status: 413), exchange, context: context)
            return
        }
        let core = self.core
        let loop = context.eventLoop
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: loop)
        MockServerCore.serve {
            let response = await core.response(for: request)
            core.execute(on: loop) {
                bound.value.handler.send(response, exchange, context: bound.value.context)
            }
        }
    }

    // MARK: Writing, with faults

    private func send(_ response: MockResponse, _ exchange: MockExchange, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        let head = exchange.responseHead(for: response)
        let body = exchange.sendsBody ? response.body : []
        let keepAlive = exchange.keepAlive(after: response)
        switch response.fault?.kind {
        case nil:
            writeHead(head, context: context)
            writeBody(body[...], context: context)
            finish(keepAlive: keepAlive, context: context)
        case .delayHeaders(let delay):
            schedule(after: delay, context: context) { handler in
                handler.writeHead(head, context: context)
                handler.writeBody(body[...], context: context)
                handler.finish(keepAlive: keepAlive, context: context)
            }
        case .delayBody(let delay):
            writeHead(head, context: context)
            context.flush()
            schedule(after: delay, context: context) { handler in
                handler.writeBody(body[...], context: context)
                handler.finish(keepAlive: keepAlive, context: context)
            }
        case .drip(let chunkSize, let interval):
            writeHead(head, context: context)
            context.flush()
            drip(body[...], chunkSize: chunkSize, interval: interval, keepAlive: keepAlive, context: context)
        case .paced(let chunkSize, let gate):
            writeHead(head, context: context)
            context.flush()
            pace(body[...], index: 0, chunkSize: chunkSize, gate: gate, keepAlive: keepAlive, context: context)
        case .closeMidBody(let count):
            closeAfterWriting(head, body.prefix(count), context: context)
        case .reset:
            reset(context: context)
        case .closeWithoutResponse:
            context.close(promise: nil)
        case .neverAnswer:
            break
        }
    }

    private func drip(
        _ remaining: ArraySlice<UInt8>,
        chunkSize: Int,
        interval: Duration,
        keepAlive: Bool,
        context: ChannelHandlerContext
    ) {
        schedule(after: interval, context: context) { handler in
            handler.writeBody(remaining.prefix(chunkSize), context: context)
            let rest = remaining.dropFirst(chunkSize)
            if rest.isEmpty {
                handler.finish(keepAlive: keepAlive, context: context)
            } else {
                context.flush()
                handler.drip(rest, chunkSize: chunkSize, interval: interval, keepAlive: keepAlive, context: context)
            }
        }
    }

    /// Sends the next chunk once the gate opened for it, on the connection's loop, while it is open.
    private func pace(
        _ remaining: ArraySlice<UInt8>,
        index: Int,
        chunkSize: Int,
        gate: PaceGate,
        keepAlive: Bool,
        context: ChannelHandlerContext
    ) {
        let core = self.core
        let loop = context.eventLoop
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: loop)
        MockServerCore.serve {
            await gate.before(index)
            core.execute(on: loop) {
                let (handler, context) = bound.value
                guard context.channel.isActive else { return }
                handler.writeBody(remaining.prefix(chunkSize), context: context)
                let rest = remaining.dropFirst(chunkSize)
                if rest.isEmpty {
                    handler.finish(keepAlive: keepAlive, context: context)
                } else {
                    context.flush()
                    handler.pace(rest, index: index + 1, chunkSize: chunkSize, gate: gate, keepAlive: keepAlive, context: context)
                }
            }
        }
    }

    private func writeHead(_ head: HTTPResponseHead, context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(.head(head)), promise: nil)
    }

    private func writeBody(_ bytes: ArraySlice<UInt8>, context: ChannelHandlerContext) {
        guard !bytes.isEmpty else { return }
        let buffer = context.channel.allocator.buffer(bytes: bytes)
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
    }

    private func finish(keepAlive: Bool, context: ChannelHandlerContext) {
        scheduled.removeAll()
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }

    /// Writes the head and a (possibly truncated) body, then closes once they reached the socket.
    private func closeAfterWriting(_ head: HTTPResponseHead, _ bytes: ArraySlice<UInt8>, context: ChannelHandlerContext) {
        var written = context.write(wrapOutboundOut(.head(head)))
        if !bytes.isEmpty {
            let buffer = context.channel.allocator.buffer(bytes: bytes)
            written = context.write(wrapOutboundOut(.body(.byteBuffer(buffer))))
        }
        context.flush()
        written.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    /// Closes abortively: `SO_LINGER` with a zero timeout makes `close` send a TCP RST.
    private func reset(context: ChannelHandlerContext) {
        guard let provider = context.channel as? any SocketOptionProvider else {
            context.close(promise: nil)
            return
        }
        provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    private func schedule(after delay: Duration, context: ChannelHandlerContext, _ body: @escaping (MockConnectionHandler) -> Void) {
        let task = context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(delay)) { [self] in
            guard context.channel.isActive else { return }
            body(self)
        }
        scheduled.append(task)
    }

    private func cancelScheduled() {
        for task in scheduled {
            task.cancel()
        }
        scheduled.removeAll()
    }
}
