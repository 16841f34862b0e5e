import Foundation

/// Where a ``BodyPump`` writes: a stream that takes bytes only when it has room.
protocol BodySink: AnyObject {
    /// Writes some of `bytes` and returns how many; 0 or less once the stream takes no more.
    func write(_ bytes: UnsafeRawBufferPointer) -> Int
    /// Whether a write now would take at least one byte.
    var hasSpaceAvailable: Bool { get }
    /// Ends the body: the reader sees its end.
    func endBody()
}

/// Copies a body's read-ahead buffer into a sink (the output end of a bound stream pair) without
/// ever blocking a thread: it writes while the sink has room, and when the body is behind it waits
/// for the buffer to call back.
// @unchecked: every method runs on `queue` (the sink's events arrive there), which owns the state.
final class BodyPump: @unchecked Sendable {
    /// The most taken from the buffer at a time, and the bound pair's buffer size.
    static let chunkSize = 64 << 10

    private let source: ReadAhead
    private weak var sink: (any BodySink)?
    private let queue: DispatchQueue
    /// Called once if the body fails: the reader must not take a body cut short for a whole one.
    private let onFailure: @Sendable () -> Void
    private var pending: ArraySlice<UInt8> = []
    private var hasSpace = false
    private var stopped = false

    init(source: ReadAhead, sink: any BodySink, queue: DispatchQueue, onFailure: @escaping @Sendable () -> Void) {
        self.source = source
        self.sink = sink
        self.queue = queue
        self.onFailure = onFailure
    }

    /// The sink has room (its `hasSpaceAvailable` event): writes what it can.
    func spaceBecameAvailable() {
        hasSpace = true
        pump()
    }

    /// The reader's side ended or failed: nothing more is written.
    func stop() { stopped = true }

    private func pump() {
        while !stopped, hasSpace, let sink {
            guard !pending.isEmpty else {
                // Kept until the buffer calls back or closes (the stream's `close` closes it).
                let resume: @Sendable () -> Void = { [self] in queue.async { self.pump() } }
                switch source.take(maxLength: Self.chunkSize, whenReady: resume) {
                case .bytes(let bytes): pending = bytes
                case .empty: return
                case .end:
                    stopped = true
                    sink.endBody()
                case .failed:
                    stopped = true
                    onFailure()
                }
                continue
            }
            let written = pending.withUnsafeBytes { sink.write($0) }
            guard written > 0 else { return stop() }
            pending = pending.dropFirst(written)
            hasSpace = sink.hasSpaceAvailable
        }
    }
}
