extension Task where Failure == any Error {
    /// Starts `operation` in a new task that runs on the calling thread up to its first suspension.
    ///
    /// Work that finishes without suspending (a response body already in memory) then costs no hop
    /// to another thread, and `value` is ready at once. Where `Task.immediate` (Swift 6.2 runtime)
    /// is not available, the task starts like any other.
    package static func startingImmediately(_ operation: @escaping @Sendable () async throws -> Success) -> Task {
        if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
            return Task.immediate(operation: operation)
        }
        return Task(operation: operation)
    }
}
