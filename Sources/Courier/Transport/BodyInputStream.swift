import Foundation
import OpenAPIRuntime

/// An `HTTPBody` as the `InputStream` URLSession reads a streamed request body from.
///
/// URLSession reads synchronously, on its own thread; a task on ``BodyThread`` reads the body ahead
/// of it into a small buffer (at most ``ReadAhead/limit`` bytes), so a read waits only when the body
/// itself is slower than the network. Only bodies that need nothing else to run (files, forms,
/// bytes) are streamed this way: see ``URLSessionTransport``. A body that fails (a file that shrank) ends the stream with an error,
/// kept in ``failure`` so the transport reports it rather than URLSession's generic one.
final class BodyInputStream: InputStream {
    private let buffer = ReadAhead()
    private let body: HTTPBody

    init(_ body: HTTPBody) {
        self.body = body
        super.init(data: Data())
    }

    /// Why the body ended early, if it did.
    var failure: (any Error)? { buffer.failure }

    override func open() { buffer.start(body) }
    override func close() { buffer.close() }
    override var streamStatus: Stream.Status { buffer.status }
    override var streamError: (any Error)? { buffer.failure }
    override var hasBytesAvailable: Bool { buffer.status == .open }

    override func read(_ destination: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
        buffer.read(into: destination, maxLength: maxLength)
    }

    override func getBuffer(_ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length: UnsafeMutablePointer<Int>) -> Bool {
        false
    }
}

/// The chunks read ahead of URLSession: filled by a task, drained by blocking reads.
// @unchecked: every mutable property is only touched while holding `condition`.
private final class ReadAhead: @unchecked Sendable {
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
            producer = Task(executorPreference: BodyThread.shared) { [self] in await produce(body) }
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
            defer { spaceWaiter = nil }
            return (self.producer, spaceWaiter)
        }
        waiter?.resume()
        producer?.cancel()
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
                let open = condition.withLock {
                    guard !ended else { return false }
                    chunks.append(chunk)
                    buffered += chunk.count
                    condition.broadcast()
                    return true
                }
                if !open { return }
            }
            finish(nil)
        } catch {
            finish(error)
        }
    }

    private func finish(_ error: (any Error)?) {
        condition.withLock {
            if !ended, let error { failedWith = error }
            ended = true
            condition.broadcast()
        }
    }
}
