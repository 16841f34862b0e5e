import Foundation
import OpenAPIRuntime

/// The chunks read ahead of URLSession: filled by a task, drained by blocking reads (an `InputStream`
/// that URLSession reads on its own thread) or by reads that never wait (a bound stream pair's pump).
// @unchecked: every mutable property is only touched while holding `condition`.
final class ReadAhead: @unchecked Sendable {
    /// How far the body is read ahead of the network.
    static let limit = 1 << 20

    private let condition = NSCondition()
    private var chunks: [ArraySlice<UInt8>] = []
    private var buffered = 0
    private var ended = false
    private var failedWith: (any Error)?
    private var state = Stream.Status.notOpen
    private var producer: Task<Void, Never>?
    /// The producer, waiting for room.
    private var spaceWaiter: CheckedContinuation<Void, Never>?
    /// A reader that found nothing buffered, to call when bytes, the end or a failure arrive.
    private var readyWaiter: (@Sendable () -> Void)?

    var failure: (any Error)? { condition.withLock { failedWith } }
    var status: Stream.Status { condition.withLock { state } }

    func start(_ body: HTTPBody) {
        let starts = condition.withLock {
            guard state == .notOpen else { return false }
            state = .open
            return true
        }
        guard starts else { return }
        let producer: Task<Void, Never>
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) {
            producer = Task(executorPreference: ThreadExecutor.bodyReader) { [self] in await produce(body) }
        } else {
            producer = Task { await produce(body) }
        }
        let closed = condition.withLock {
            self.producer = producer
            return state == .closed
        }
        if closed { producer.cancel() }
    }

    func close() {
        let (producer, waiter) = condition.withLock {
            state = .closed
            ended = true
            condition.broadcast()
            defer {
                spaceWaiter = nil
                readyWaiter = nil
            }
            return (self.producer, spaceWaiter)
        }
        waiter?.resume()
        producer?.cancel()
    }

    /// What a read that never waits found.
    enum Take: Equatable {
        case bytes(ArraySlice<UInt8>)
        /// Nothing buffered yet: `whenReady` will be called once.
        case empty
        case end
        case failed
    }

    /// Takes up to `maxLength` buffered bytes without waiting; when there are none yet, `whenReady`
    /// is called (once) as soon as bytes, the end or a failure arrive.
    func take(maxLength: Int, whenReady: @escaping @Sendable () -> Void) -> Take {
        let (taken, waiter) = condition.withLock { () -> (Take, CheckedContinuation<Void, Never>?) in
            guard var chunk = chunks.first else {
                guard ended else {
                    readyWaiter = whenReady
                    return (.empty, nil)
                }
                if failedWith != nil { state = .error } else if state == .open { state = .atEnd }
                return (failedWith == nil ? .end : .failed, nil)
            }
            let count = min(maxLength, chunk.count)
            let bytes = chunk.prefix(count)
            chunk = chunk.dropFirst(count)
            if chunk.isEmpty { chunks.removeFirst() } else { chunks[0] = chunk }
            buffered -= count
            guard buffered < Self.limit else { return (.bytes(bytes), nil) }
            defer { spaceWaiter = nil }
            return (.bytes(bytes), spaceWaiter)
        }
        waiter?.resume()
        return taken
    }

    /// Copies up to `maxLength` bytes, waiting for the body if none are buffered; 0 at the end, -1 on failure.
    func read(into destination: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
        let (count, waiter) = condition.withLock { () -> (Int, CheckedContinuation<Void, Never>?) in
            while chunks.isEmpty, !ended { condition.wait() }
            guard var chunk = chunks.first else {
                if failedWith != nil { state = .error } else if state == .open { state = .atEnd }
                return (failedWith == nil ? 0 : -1, nil)
            }
            let count = min(maxLength, chunk.count)
            chunk.withUnsafeBufferPointer { bytes in
                if let base = bytes.baseAddress { destination.update(from: base, count: count) }
            }
            chunk = chunk.dropFirst(count)
            if chunk.isEmpty { chunks.removeFirst() } else { chunks[0] = chunk }
            buffered -= count
            guard buffered < Self.limit else { return (count, nil) }
            defer { spaceWaiter = nil }
            return (count, spaceWaiter)
        }
        waiter?.resume()
        return count
    }

    /// Reads the body ahead of the network, waiting while the buffer is full.
    private func produce(_ body: HTTPBody) async {
        do {
            for try await chunk in body {
                await withCheckedContinuation { continuation in
                    let full = condition.withLock {
                        guard buffered >= Self.limit, !ended else { return false }
                        spaceWaiter = continuation
                        return true
                    }
                    if !full { continuation.resume() }
                }
                let (open, ready) = condition.withLock { () -> (Bool, (@Sendable () -> Void)?) in
                    guard !ended else { return (false, nil) }
                    chunks.append(chunk)
                    buffered += chunk.count
                    condition.broadcast()
                    defer { readyWaiter = nil }
                    return (true, readyWaiter)
                }
                ready?()
                if !open { return }
            }
            finish(nil)
        } catch {
            finish(error)
        }
    }

    private func finish(_ error: (any Error)?) {
        let ready = condition.withLock {
            if !ended, let error { failedWith = error }
            ended = true
            condition.broadcast()
            defer { readyWaiter = nil }
            return readyWaiter
        }
        ready?()
    }
}
