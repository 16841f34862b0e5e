extension Task where Failure == any Error {
    /// Starts `operation` in a new task that runs on the calling thread up to its first suspension.
    ///
    /// Work that finishes without suspending (a response body already in memory) then costs no hop
    /// to another thread, and `value` is ready at once. Where `Task.immediate` (Swift 6.2 runtime)
    /// is not available, the task starts like any other.
    ///
    /// A `detached` task copies none of the caller's task-local values (cheaper, for work that reads
    /// none); it still runs at the caller's priority.
    package static func startingImmediately(
        detached: Bool = false,
        _ operation: @escaping @Sendable () async throws -> Success
    ) -> Task {
        // `Task.immediate` exists from the Swift 6.2 compiler on; `#available` alone is a run-time check.
        #if compiler(>=6.2)
        if #available(macOS 26.0, iOS 26.0, tvOS 26.0, watchOS 26.0, visionOS 26.0, *) {
            if detached { return Task.immediateDetached(priority: Task<Never, Never>.currentPriority, operation: operation) }
            return Task.immediate(operation: operation)
        }
        #endif
        if detached { return Task.detached(priority: Task<Never, Never>.currentPriority, operation: operation) }
        return Task(operation: operation)
    }
}
