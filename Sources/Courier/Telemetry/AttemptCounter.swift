/// Counts the attempts of one call, so each attempt's span knows how many went before it.
final class AttemptCounter: Sendable {
    private let count = Locked(0)

    /// The counter of the call in progress, set by ``TelemetryMiddleware``.
    @TaskLocal static var current: AttemptCounter?

    /// The number of attempts before this one.
    func next() -> Int {
        count.withLock { value in
            defer { value += 1 }
            return value
        }
    }
}
