import AsyncHTTPClient
import Courier
import NIOCore
import NIOHTTP1

/// The response as the transport and the body's reader take it: the head, then the body chunk by
/// chunk, each waited for only when it hasn't arrived yet; and the ways to end it early.
extension ResponseStream {
    /// Keeps AsyncHTTPClient's task, to cancel it; cancels it at once if the reader already gave up.
    func attach(_ task: HTTPClient.Task<Void>) {
        let cancelled = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
        rearmIdleTimer(on: task.eventLoop)
    }

    /// Ends the request: AsyncHTTPClient closes the connection and fails the waiting reader.
    func cancel() {
        state.withLock { state in
            state.cancelled = true
            return state.task
        }?.cancel()
    }

    /// Ends the request unless the response already arrived whole: the reader dropped the body.
    func abandon() {
        state.withLock { state in
            state.cancelled = true
            return state.end == nil ? state.task : nil
        }?.cancel()
    }

    /// The response head, once it arrives.
    func head() async throws -> HTTPResponseHead {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready = state.withLock { state -> Result<Void, any Error>? in
                    if state.headReleased, state.head != nil { return .success(()) }
                    switch state.end {
                    case .failure(let error): return .failure(error)
                    case .success: return .failure(HTTPClientError.remoteConnectionClosed)
                    case nil:
                        state.headWaiter = continuation
                        return nil
                    }
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            cancel()
        }
        // Read under the lock the event loop wrote it under.
        guard let head = state.withLock({ $0.head }) else { throw HTTPClientError.remoteConnectionClosed }
        return head
    }

    /// The next chunk of the body, or nil at its end.
    func nextChunk() async throws -> ByteBuffer? {
        switch try take() {
        case .chunk(let chunk): return chunk
        case .end: return nil
        case .wait: break
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ByteBuffer?, any Error>) in
                do {
                    switch try take(orWaitWith: continuation) {
                    case .chunk(let chunk): continuation.resume(returning: chunk)
                    case .end: continuation.resume(returning: nil)
                    case .wait: break
                    }
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            cancel()
        }
    }

    private enum Next { case chunk(ByteBuffer), end, wait }

    /// A waiting chunk or the end if there is one; else `.wait`, and `continuation` (if any) is
    /// resumed by the next chunk or the end.
    private func take(orWaitWith continuation: CheckedContinuation<ByteBuffer?, any Error>? = nil) throws -> Next {
        let (next, resume) = try state.withLock { state throws -> (Next, EventLoopPromise<Void>?) in
            if let chunk = state.chunks.popFirst() {
                state.unread -= chunk.readableBytes
                var resume: EventLoopPromise<Void>?
                if state.unread <= Self.highWater / 2 { (resume, state.paused) = (state.paused, nil) }
                return (.chunk(chunk), resume)
            }
            switch state.end {
            case .success: return (.end, nil)
            case .failure(let error): throw error
            case nil:
                state.chunkWaiter = continuation
                return (.wait, nil)
            }
        }
        if let resume {
            resume.succeed(())
            rearmIdleTimer(on: resume.futureResult.eventLoop)
        }
        return next
    }
}
