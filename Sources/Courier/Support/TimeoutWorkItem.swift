import Dispatch

/// A cancellable timer for one request, on a global dispatch queue.
// @unchecked: `DispatchWorkItem` is documented thread-safe (`cancel()` may be called from any
// thread, also while it is scheduled); it is not marked Sendable in corelibs-libdispatch only.
final class TimeoutWorkItem: @unchecked Sendable {
    private let item: DispatchWorkItem

    init(_ work: @escaping @Sendable () -> Void) { item = DispatchWorkItem(block: work) }

    func schedule(after timeout: Duration) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: timeout.nanoseconds)), execute: item)
    }

    /// Cancels the timer; a cancelled item is released by the queue at once, not at its deadline.
    func cancel() { item.cancel() }
}

extension Duration {
    /// The whole number of nanoseconds, saturating.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : product.addingReportingOverflow(attoseconds / 1_000_000_000).partialValue
    }
}
