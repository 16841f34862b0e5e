import AsyncHTTPClient
import Courier
import NIOCore
import NIOHTTP1

/// One response from AsyncHTTPClient's delegate API, handed over to Swift concurrency: the head
/// once it arrives, then the body chunk by chunk.
///
/// AsyncHTTPClient reads no further while more than ``highWater`` bytes wait unread
/// (backpressure), so a large body costs bounded memory whatever pace its reader keeps. The
/// deadline given to `execute` bounds head and body alike, on the event loop: no task or timer of
/// Courier's runs per call.
final class ResponseStream: HTTPClientResponseDelegate {
    typealias Response = Void

    /// Unread bytes past which the connection stops reading until the reader catches up.
    static let highWater = 256 * 1024

    /// A response announced up to this size is handed over whole: its head waits for its body,
    /// which nearly always arrives in the same read, so the caller's task wakes once, not three times.
    static let wholeResponseLimit = 64 * 1024

    struct State {
        var head: HTTPResponseHead?
        /// Whether the head may go to the reader: at once, or with the body for a small response.
        var headReleased = false
        /// The reader waiting for the head, resumed once it may read it from here (under the lock
        /// the event loop wrote it under: Thread Sanitizer sees that handover, not a continuation's).
        var headWaiter: CheckedContinuation<Void, any Error>?
        var chunks = CircularBuffer<ByteBuffer>()
        var unread = 0
        var chunkWaiter: CheckedContinuation<ByteBuffer?, any Error>?
        /// Completed when the reader drains the chunks: AsyncHTTPClient waits on it to read on.
        var paused: EventLoopPromise<Void>?
        /// Set once AsyncHTTPClient is done, with its error if it failed.
        var end: Result<Void, any Error>?
        var task: HTTPClient.Task<Void>?
        var cancelled = false
        /// A transfer's idle timer, re-armed by every byte either way; off while the reader is behind.
        var idle: Scheduled<Void>?
        /// The backstop at the deadline of a request with a body (see ``backstop``).
        var backstopTimer: Scheduled<Void>?
    }

    let state = Locked(State())
    /// Whether a small announced response is handed over whole (see ``wholeResponseLimit``).
    private let waitsForSmallBodies: Bool
    /// For a request with a body: its deadline, enforced here too. AsyncHTTPClient (1.37) can hold
    /// a response that ended before it sent the end of the request body, and then its own deadline
    /// never reaches the delegate; for the same reason such a response's head is never held back.
    private let backstop: Deadline?
    /// For a transfer: how long the connection may stay silent, and the error when it does.
    private let idleLimit: Duration?

    init(waitsForSmallBodies: Bool, backstop: Deadline? = nil, idleLimit: Duration? = nil) {
        self.waitsForSmallBodies = waitsForSmallBodies
        self.backstop = backstop
        self.idleLimit = idleLimit
    }

    // MARK: Fed by AsyncHTTPClient, on the event loop

    func didSendRequestHead(task: HTTPClient.Task<Void>, _ head: HTTPRequestHead) {
        // Scheduled from the event loop itself, which needs no wake-up of it (from the caller's thread it would).
        guard let backstop else { return }
        let timer = task.eventLoop.scheduleTask(in: TimeAmount(backstop.remaining)) { [self] in expire() }
        let keeps = state.withLock { state in
            guard state.end == nil else { return false }
            state.backstopTimer = timer
            return true
        }
        if !keeps { timer.cancel() }
    }

    func didSendRequestPart(task: HTTPClient.Task<Void>, _ part: IOData) {
        rearmIdleTimer(on: task.eventLoop)
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        rearmIdleTimer(on: task.eventLoop)
        let announced = head.headers.first(name: "content-length").flatMap(Int.init)
        let waitsForBody = waitsForSmallBodies && announced.map { $0 <= Self.wholeResponseLimit } ?? false
        let waiter = state.withLock { state in
            state.head = head
            return waitsForBody && backstop == nil ? nil : state.releaseHead()
        }
        waiter?.resume()
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        enum Action { case hand(CheckedContinuation<ByteBuffer?, any Error>), readOn, pause(EventLoopPromise<Void>) }
        var released: CheckedContinuation<Void, any Error>?
        let action = state.withLock { state -> Action in
            if let waiter = state.chunkWaiter {
                state.chunkWaiter = nil
                return .hand(waiter)
            }
            state.chunks.append(buffer)
            state.unread += buffer.readableBytes
            // A server that sends more than it announced gets its head delivered all the same.
            if state.unread > Self.wholeResponseLimit, !state.headReleased, state.head != nil {
                released = state.releaseHead()
            }
            guard state.unread > Self.highWater else { return .readOn }
            let promise = task.eventLoop.makePromise(of: Void.self)
            state.paused = promise
            // Waiting for the reader is not the server's silence.
            state.idle?.cancel()
            state.idle = nil
            return .pause(promise)
        }
        released?.resume()
        if case .pause = action {} else { rearmIdleTimer(on: task.eventLoop) }
        switch action {
        case .hand(let waiter):
            waiter.resume(returning: buffer)
            return task.eventLoop.makeSucceededVoidFuture()
        case .readOn:
            return task.eventLoop.makeSucceededVoidFuture()
        case .pause(let promise):
            return promise.futureResult
        }
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        finish(.success(()))
    }

    func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
        finish(.failure(error))
    }

    private func finish(_ result: Result<Void, any Error>) {
        let (head, headWaiter, chunkWaiter, paused) = state.withLock { state in
            if state.end == nil { state.end = result }
            // A failure before the head was released fails the head: the response never came whole.
            let headWaiter: CheckedContinuation<Void, any Error>?
            if case .success = result, state.head != nil {
                headWaiter = state.releaseHead()
            } else {
                (headWaiter, state.headWaiter) = (state.headWaiter, nil)
            }
            state.idle?.cancel()
            state.idle = nil
            state.backstopTimer?.cancel()
            state.backstopTimer = nil
            defer { (state.chunkWaiter, state.paused) = (nil, nil) }
            return (state.head, headWaiter, state.chunkWaiter, state.paused)
        }
        switch result {
        case .success:
            if head != nil { headWaiter?.resume() } else { headWaiter?.resume(throwing: HTTPClientError.remoteConnectionClosed) }
            chunkWaiter?.resume(returning: nil)
        case .failure(let error):
            headWaiter?.resume(throwing: error)
            chunkWaiter?.resume(throwing: error)
        }
        paused?.succeed(())
    }

    /// Restarts a transfer's idle timer (on the event loop the delegate runs on).
    func rearmIdleTimer(on loop: any EventLoop) {
        guard let idleLimit else { return }
        let next = loop.scheduleTask(in: TimeAmount(idleLimit)) { [self] in expire(with: TimeLimit.idle(idleLimit).error) }
        let (previous, keeps) = state.withLock { state -> (Scheduled<Void>?, Bool) in
            let previous = state.idle
            let keeps = state.end == nil && state.paused == nil
            state.idle = keeps ? next : nil
            return (previous, keeps)
        }
        previous?.cancel()
        if !keeps { next.cancel() }
    }

    /// Fails the waiting reader with the deadline's error and cancels the request, unless the
    /// response already arrived whole (the backstop and the idle timer).
    func expire(with error: any Error = HTTPClientError.deadlineExceeded) {
        let task = state.withLock { state in state.end == nil ? state.task : nil }
        guard let task else { return }
        finish(.failure(error))
        task.cancel()
    }
}

extension ResponseStream.State {
    /// Lets the head go to the reader from now on; returns the reader waiting for it, if any.
    mutating func releaseHead() -> CheckedContinuation<Void, any Error>? {
        headReleased = true
        defer { headWaiter = nil }
        return headWaiter
    }
}
