import Courier
import Foundation
#if canImport(Combine)
import Combine
#else
import OpenCombine
#endif

/// Delivers a stream's values to one subscriber, honouring its demand: the stream is read only
/// while the subscriber wants more than is buffered, so a slow subscriber holds an endless stream
/// (server-sent events) back instead of a growing buffer.
// @unchecked: the subscriber (not Sendable in Combine's API) and every mutable field live in
// `state`, read and written only under its lock; the subscriber is called outside the lock, one
// delivery at a time (`delivering` guards re-entrance from within `receive(_:)`).
final class UpdatesSubscription<S: Subscriber>: Subscription, StreamSink, @unchecked Sendable
where S.Failure == CourierError, S.Input: Sendable {
    private struct State {
        var subscriber: S?
        var demand: Subscribers.Demand = .none
        var buffer: [S.Input] = []
        var completion: Subscribers.Completion<CourierError>?
        var task: Task<Void, Never>?
        var delivering = false
        /// The reading task, waiting for the subscriber to want more (see ``wanted()``).
        var waitingReader: CheckedContinuation<Void, Never>?

        /// Whether the reader may read on: the subscriber wants more than is buffered, or is gone.
        var readerMayRead: Bool { subscriber == nil || demand > buffer.count }
    }

    private enum Step {
        case value(S, S.Input)
        case complete(S, Subscribers.Completion<CourierError>)
        case stop
    }

    private let state: Locked<State>
    private let makeStream: @Sendable () -> AsyncThrowingStream<S.Input, any Error>

    init(subscriber: S, makeStream: @escaping @Sendable () -> AsyncThrowingStream<S.Input, any Error>) {
        state = Locked(State(subscriber: subscriber))
        self.makeStream = makeStream
    }

    func request(_ demand: Subscribers.Demand) {
        let start = state.withLock { state -> Bool in
            state.demand += demand
            return state.task == nil && state.subscriber != nil
        }
        if start { startStream() }
        drain()
        wakeReader()
    }

    func cancel() {
        let task = state.withLock { state -> Task<Void, Never>? in
            state.subscriber = nil
            state.buffer = []
            return state.task
        }
        task?.cancel()
        wakeReader()
    }

    func wanted() async {
        await withCheckedContinuation { continuation in
            let mayRead = state.withLock { state -> Bool in
                if state.readerMayRead { return true }
                state.waitingReader = continuation
                return false
            }
            if mayRead { continuation.resume() }
        }
    }

    /// Lets a waiting reader read on once the subscriber wants more.
    private func wakeReader() {
        let reader = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.readerMayRead else { return nil }
            defer { state.waitingReader = nil }
            return state.waitingReader
        }
        reader?.resume()
    }

    private func startStream() {
        let task = pump(makeStream(), to: self)
        state.withLock { $0.task = task }
    }

    func handle(_ event: StreamEvent<S.Input>) {
        state.withLock { state in
            switch event {
            case .value(let value): state.buffer.append(value)
            case .end(let completion): state.completion = completion
            }
        }
        drain()
    }

    /// Sends buffered values while there is demand, then the completion once the buffer is empty.
    private func drain() {
        while true {
            let step = state.withLock { state -> Step in
                guard !state.delivering, let subscriber = state.subscriber else { return .stop }
                if state.demand > 0, !state.buffer.isEmpty {
                    state.demand -= 1
                    state.delivering = true
                    return .value(subscriber, state.buffer.removeFirst())
                }
                if state.buffer.isEmpty, let completion = state.completion {
                    state.subscriber = nil
                    return .complete(subscriber, completion)
                }
                return .stop
            }
            switch step {
            case .value(let subscriber, let value):
                let more = subscriber.receive(value)
                state.withLock {
                    $0.demand += more
                    $0.delivering = false
                }
                wakeReader()
            case .complete(let subscriber, let completion):
                subscriber.receive(completion: completion)
                return
            case .stop:
                return
            }
        }
    }
}

/// What the stream produced: a value or its end.
enum StreamEvent<Value: Sendable>: Sendable {
    case value(Value)
    case end(Subscribers.Completion<CourierError>)
}

/// Reads a stream in a task, a value at a time as the sink wants them, and reports each event;
/// kept out of the generic subscription so the task captures nothing but Sendable values.
func pump<Value: Sendable>(_ stream: AsyncThrowingStream<Value, any Error>, to sink: any StreamSink<Value>) -> Task<Void, Never> {
    Task { [weak sink] in
        do {
            var values = stream.makeAsyncIterator()
            while true {
                await sink?.wanted()
                guard let value = try await values.next() else { break }
                sink?.handle(.value(value))
            }
            sink?.handle(.end(.finished))
        } catch {
            sink?.handle(.end(.failure(CourierError.from(transportError: error))))
        }
    }
}

/// Receives stream events; the subscription, seen without its subscriber type.
protocol StreamSink<Value>: AnyObject, Sendable {
    associatedtype Value: Sendable
    func handle(_ event: StreamEvent<Value>)
    /// Returns once the subscriber wants another value (or is gone).
    func wanted() async
}
