import Courier

/// A call started with a completion handler; cancel it to stop the request.
///
/// The completion handler runs exactly once: with the result, or with a `CourierError.Kind.cancelled`
/// error delivered at once when ``cancel()`` wins the race. A success never arrives after a cancel.
public final class CallHandle: Sendable {
    private struct State {
        var task: Task<Void, Never>?
        var finished = false
        var onCancel: (@Sendable () -> Void)?
    }

    private let state = Locked(State())

    init() {}

    /// Cancels the call; the completion handler receives `cancelled` unless it already ran.
    public func cancel() {
        let (task, onCancel) = state.withLock { state -> (Task<Void, Never>?, (@Sendable () -> Void)?) in
            guard !state.finished else { return (nil, nil) }
            state.finished = true
            return (state.task, state.onCancel)
        }
        task?.cancel()
        onCancel?()
    }

    /// Whether the call has delivered its result or was cancelled.
    public var isFinished: Bool { state.withLock { $0.finished } }

    /// Claims the right to deliver; true exactly once.
    func claimDelivery() -> Bool {
        state.withLock { state in
            guard !state.finished else { return false }
            state.finished = true
            return true
        }
    }

    func attach(_ task: Task<Void, Never>, onCancel: @escaping @Sendable () -> Void) {
        let cancelledAlready = state.withLock { state -> Bool in
            state.task = task
            state.onCancel = onCancel
            return state.finished
        }
        if cancelledAlready { task.cancel() }
    }
}
