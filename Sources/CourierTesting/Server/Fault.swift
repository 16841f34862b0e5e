/// A misbehaviour the ``MockServer`` applies when it sends a ``MockResponse``.
///
/// A struct with static members rather than an enum, so new faults can be added without
/// breaking callers that switch over them.
public struct Fault: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case delayHeaders(Duration)
        case delayBody(Duration)
        case drip(chunkSize: Int, interval: Duration)
        case paced(chunkSize: Int, gate: PaceGate)
        case closeMidBody(afterBytes: Int)
        case reset
        case closeWithoutResponse
        case neverAnswer
    }

    let kind: Kind

    /// Waits `delay` before sending the response head; the body follows at once.
    public static func delayHeaders(_ delay: Duration) -> Fault {
        Fault(kind: .delayHeaders(delay))
    }

    /// Sends the response head at once, waits `delay`, then sends the body.
    public static func delayBody(_ delay: Duration) -> Fault {
        Fault(kind: .delayBody(delay))
    }

    /// Sends the head at once, then the body in chunks of `chunkSize` bytes, one every `interval`.
    public static func drip(chunkSize: Int, interval: Duration) -> Fault {
        Fault(kind: .drip(chunkSize: max(1, chunkSize), interval: interval))
    }

    /// Sends the head at once, then the body in chunks of `chunkSize` bytes, each only once
    /// `before` has returned for its index (0 for the first chunk).
    ///
    /// A server paced by the test rather than by the clock: `before` can wait until the client has
    /// received the previous chunk, or until the test lets the rest go, so the exchange behaves the
    /// same however slow the machine is. `before` runs in a task of its own; once the connection
    /// closes or the server shuts down, nothing more is sent.
    public static func paced(chunkSize: Int, before: @escaping @Sendable (_ chunk: Int) async -> Void) -> Fault {
        Fault(kind: .paced(chunkSize: max(1, chunkSize), gate: PaceGate(before)))
    }

    /// Sends the head with the full `Content-Length`, then only `afterBytes` body bytes, then closes.
    ///
    /// If `afterBytes` is at least the body length the whole body is sent before the close.
    public static func closeMidBody(afterBytes: Int) -> Fault {
        Fault(kind: .closeMidBody(afterBytes: max(0, afterBytes)))
    }

    /// Resets the connection (`SO_LINGER` 0, then close, so the peer gets a TCP RST) without answering.
    public static let reset = Fault(kind: .reset)

    /// Closes the connection cleanly (FIN) without answering.
    public static let closeWithoutResponse = Fault(kind: .closeWithoutResponse)

    /// Keeps the connection open and never answers, until the client or ``MockServer/shutdown()`` closes it.
    public static let neverAnswer = Fault(kind: .neverAnswer)

    /// A short name of the fault for test output.
    public var description: String {
        switch kind {
        case .delayHeaders(let delay): "delayHeaders(\(delay))"
        case .delayBody(let delay): "delayBody(\(delay))"
        case .drip(let size, let interval): "drip(chunkSize: \(size), interval: \(interval))"
        case .paced(let size, _): "paced(chunkSize: \(size))"
        case .closeMidBody(let count): "closeMidBody(afterBytes: \(count))"
        case .reset: "reset"
        case .closeWithoutResponse: "closeWithoutResponse"
        case .neverAnswer: "neverAnswer"
        }
    }
}

/// The test's wait before each chunk of a ``Fault/paced(chunkSize:before:)`` body; equal only to itself.
final class PaceGate: Sendable, Hashable {
    let before: @Sendable (Int) async -> Void

    init(_ before: @escaping @Sendable (Int) async -> Void) {
        self.before = before
    }

    static func == (lhs: PaceGate, rhs: PaceGate) -> Bool { lhs === rhs }

    func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
