import Foundation
import OpenAPIRuntime
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransportDelegate {
    /// One task's response and body as they arrive, and the continuation they end in: the whole
    /// body gathered within the limit, or, for a transfer, the head at once and the body as a stream.
    final class Reception: Sendable {
        typealias Reply = (URLResponse, Body)

        /// A body as the reception hands it over: gathered, or streamed as it arrives.
        enum Body: Sendable {
            case whole(Data)
            case streamed(HTTPBody)
        }

        private struct State {
            var continuation: CheckedContinuation<Reply, any Error>?
            var body: BodyAccumulator?
            /// A streamed body's bytes on their way to its reader.
            var streamed: ResponseBuffer?
            var response: URLResponse?
            var failure: CourierError?
            var timer: DeadlineTimer.Token?
            var finished = false
            /// An error status keeps only the first `limit` bytes of its body (see `collectPrefix`).
            var keepsPrefix = false
            /// The prefix is complete: the task was stopped on purpose.
            var prefixComplete = false
        }

        private let state: Locked<State>
        private let limit: Int
        /// Whether the body is handed over as it arrives instead of gathered.
        private let streams: Bool
        /// Stops the session task (a body over the limit, a streamed body dropped unread).
        private let stop: TaskStop
        /// Pauses or resumes the session task while a streamed body's reader is behind; nil where
        /// URLSession can't (see ``ResponseBuffer``).
        private let pause: (@Sendable (Bool) -> Void)?

        init(
            limit: Int, streams: Bool, stop: TaskStop, pause: (@Sendable (Bool) -> Void)? = nil
        ) {
            self.limit = limit
            self.streams = streams
            self.stop = stop
            self.pause = pause
            state = Locked(State())
        }

        /// Takes the caller's continuation; false when the reception already ended (the call was
        /// cancelled before it started), the continuation then resumed with why.
        func start(_ continuation: CheckedContinuation<Reply, any Error>) -> Bool {
            let ended = state.withLock { state -> CourierError? in
                guard state.finished else {
                    state.continuation = continuation
                    return nil
                }
                return state.failure ?? CourierError(.cancelled, detail: "The call was cancelled")
            }
            if let ended { continuation.resume(throwing: ended) }
            return ended == nil
        }

        /// Stops the session task (see ``TaskStop``).
        func stopTask() { stop() }

        /// Keeps the timer to cancel on completion; false when the reception already finished.
        func keep(_ timer: DeadlineTimer.Token) -> Bool {
            state.withLock { state in
                if !state.finished { state.timer = timer }
                return !state.finished
            }
        }

        /// Ends the reception now with `failure` (the caller cancelled, the deadline passed; an
        /// earlier failure wins), without waiting for the session to end the task, which it then
        /// stops: FoundationNetworking may never report a task that a cancel raced.
        func end(_ failure: CourierError) {
            let ended = state.withLock { state -> (CheckedContinuation<Reply, any Error>?, ResponseBuffer?, DeadlineTimer.Token?, CourierError)? in
                guard !state.finished else { return nil }
                state.finished = true
                if state.failure == nil { state.failure = failure }
                defer {
                    state.continuation = nil
                    state.streamed = nil
                    state.timer = nil
                    state.body = nil
                }
                return (state.continuation, state.streamed, state.timer, state.failure ?? failure)
            }
            guard let (continuation, streamed, timer, failure) = ended else { return }
            timer?.cancel()
            streamed?.finish(.failure(failure))
            continuation?.resume(throwing: failure)
            stop()
        }

        /// Records why the task is about to end (an earlier failure wins).
        func fail(_ error: CourierError) {
            state.withLock { if $0.failure == nil { $0.failure = error } }
        }

        /// Takes the response head; false when its announced length is over the limit. A streamed
        /// transfer hands the head over now, with its body to come.
        func receive(_ response: URLResponse) -> Bool {
            let announced = response.expectedContentLength >= 0 ? Int(clamping: response.expectedContentLength) : nil
            if streams { return handOver(response, announced: announced) }
            let status = (response as? HTTPURLResponse)?.statusCode ?? 200
            return state.withLock { state in
                state.response = response
                state.keepsPrefix = !(200..<300).contains(status)
                do throws(CourierError) {
                    state.body = try BodyAccumulator(limit: limit, announcedLength: state.keepsPrefix ? nil : announced)
                    return true
                } catch {
                    if state.failure == nil { state.failure = error }
                    return false
                }
            }
        }

        private func handOver(_ response: URLResponse, announced: Int?) -> Bool {
            let buffer = ResponseBuffer(pause: pause, cancel: { [stop] in stop() })
            let continuation = state.withLock { state in
                state.response = response
                state.streamed = buffer
                defer { state.continuation = nil }
                return state.continuation
            }
            continuation?.resume(returning: (response, .streamed(buffer.body(length: announced.map { .known(Int64($0)) } ?? .unknown))))
            return true
        }

        /// Adds body bytes; false once the body is over the limit.
        func append(_ data: Data) -> Bool {
            stop.count(data.count)
            if let streamed = state.withLock({ $0.failure == nil ? $0.streamed : nil }) {
                // Outside the reception's lock: the buffer may write to its file.
                streamed.append(data)
                return true
            }
            return state.withLock { state in
                guard state.failure == nil else { return false }
                do throws(CourierError) {
                    if state.body == nil { state.body = try BodyAccumulator(limit: limit, announcedLength: nil) }
                    if state.keepsPrefix {
                        if state.body?.appendPrefix(data) == false { state.prefixComplete = true }
                        return !state.prefixComplete
                    }
                    try state.body?.append(data)
                    return true
                } catch {
                    state.failure = error
                    state.body = nil
                    return false
                }
            }
        }

        /// Resumes the caller with the body, or with the first failure; ends a streamed body.
        func complete(error: (any Error)?, response: URLResponse?) {
            let (continuation, streamed, timer, result) = state.withLock { state in
                state.finished = true
                defer {
                    state.continuation = nil
                    state.streamed = nil
                    state.timer = nil
                    state.body = nil
                }
                let result: Result<Reply, any Error>
                if state.prefixComplete, let response = state.response {
                    result = .success((response, .whole(state.body?.data ?? Data())))
                } else if let failure = state.failure {
                    result = .failure(failure)
                } else if let error {
                    result = .failure(CourierError.from(transportError: error))
                } else if let response = state.response ?? response {
                    result = .success((response, .whole(state.body?.data ?? Data())))
                } else {
                    result = .failure(CourierError(.invalidResponse, detail: "URLSession returned no response"))
                }
                return (state.continuation, state.streamed, state.timer, result)
            }
            timer?.cancel()
            streamed?.finish(result.map { _ in })
            continuation?.resume(with: result)
        }
    }
}
