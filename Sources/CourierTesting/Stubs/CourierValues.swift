import Courier

// Values a test hands to the app's code as Courier would (a progress callback, an event handler);
// Courier itself makes them only from what a transfer or a stream did.

extension TransferProgress {
    /// A progress value, as a transfer reports it.
    public init(completedBytes: Int64, totalBytes: Int64?) {
        self.init(completed: completedBytes, total: totalBytes)
    }
}

extension StreamedEvent {
    /// An event from its parts, as a stream delivers it.
    public init(value: Value, name: String? = nil, id: String? = nil, retry: Duration? = nil, index: Int) {
        self.init(value, name: name, id: id, retry: retry, index: index)
    }

    /// The same event with another value.
    public func map<T: Sendable>(_ transform: (Value) throws -> T) rethrows -> StreamedEvent<T> {
        try withValue(transform)
    }
}

extension EventStreamReconnection {
    /// The same policy with its waits measured on `clock`, so a test moves an event stream's
    /// reconnections forward with a ``ManualClock`` instead of waiting for them.
    public func waiting(on clock: some Clock<Duration>) -> EventStreamReconnection {
        var copy = self
        copy.clock = clock
        return copy
    }
}
