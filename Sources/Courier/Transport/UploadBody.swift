import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import OpenAPIRuntime

/// A request body that URLSession streams, and every stream made for it: when URLSession must send
/// the body again (a connection lost mid-upload, an authentication challenge) it asks the session's
/// delegate for a new stream, which starts the body over if it can be read more than once.
final class UploadBody: Sendable {
    private struct State {
        var streams: [any BodyStream] = []
        var task: URLSessionTask?
        var stop: TaskStop?
        var closed = false
    }

    private let body: HTTPBody
    private let state = Locked(State())

    /// The uploads in flight by session task, for the session delegate's `needNewBodyStream`.
    private static let inFlight = Locked<[ObjectIdentifier: UploadBody]>([:])

    init(_ body: HTTPBody) {
        self.body = body
    }

    /// Whether a body can be sent again from its start.
    static func canReplay(_ body: HTTPBody) -> Bool { body.iterationBehavior == .multiple }

    /// The first stream, for the request's `httpBodyStream`.
    func firstStream() -> InputStream { makeStream() }

    /// A stream that starts the body over, or nil when it can be read only once (URLSession then
    /// fails the task, a lost connection).
    func newStream() -> InputStream? {
        guard Self.canReplay(body), !state.withLock({ $0.closed }) else { return nil }
        // URLSession is done with the earlier stream: stop reading the body for it.
        state.withLock { $0.streams.last }?.close()
        return makeStream()
    }

    /// Why the body ended early, if it did: the latest reason of any stream (URLSession may have
    /// asked for a new stream after one failed, and never opened it).
    var failure: (any Error)? {
        state.withLock { $0.streams }.reversed().lazy.compactMap(\.failure).first
    }

    /// Lets the session delegate find this body while `task` runs; a body that fails stops it with `stop`.
    func attach(to task: URLSessionTask, stop: TaskStop) {
        state.withLock { state in
            state.task = task
            state.stop = stop
        }
        Self.inFlight.withLock { $0[ObjectIdentifier(task)] = self }
    }

    /// The body being uploaded by `task`, if it streams one.
    static func attached(to task: URLSessionTask) -> UploadBody? {
        inFlight.withLock { $0[ObjectIdentifier(task)] }
    }

    /// Stops reading the body and forgets the task.
    func close() {
        let (streams, task) = state.withLock { state in
            state.closed = true
            defer {
                state.streams = []
                state.task = nil
                state.stop = nil
            }
            return (state.streams, state.task)
        }
        if let task { _ = Self.inFlight.withLock { $0.removeValue(forKey: ObjectIdentifier(task)) } }
        for stream in streams { stream.close() }
    }

    private func makeStream() -> InputStream {
        // A body that fails on a bound pair would otherwise just stop: the task is cancelled, and
        // the transport reports the body's own error.
        let stream = makeBodyStream(body) { [state] in state.withLock { $0.stop }?() }
        let closed = state.withLock { state in
            if !state.closed { state.streams.append(stream) }
            return state.closed
        }
        if closed { stream.close() }
        return stream.input
    }
}
