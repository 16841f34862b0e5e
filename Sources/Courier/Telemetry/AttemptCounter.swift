import ServiceContextModule

/// Counts the attempts of one call, so each attempt's span knows how many went before it.
///
/// ``TelemetryMiddleware`` puts one in the call span's service context, the value tracing already
/// carries from a span to its children; ``AttemptTelemetryMiddleware`` reads it from there.
final class AttemptCounter: Sendable {
    private let count = Locked(0)

    /// The number of attempts before this one.
    func next() -> Int {
        count.withLock { value in
            defer { value += 1 }
            return value
        }
    }
}

extension ServiceContext {
    /// The attempt counter of the call whose span this context belongs to.
    var attemptCounter: AttemptCounter? {
        get { self[AttemptCounterKey.self] }
        set { self[AttemptCounterKey.self] = newValue }
    }
}

private enum AttemptCounterKey: ServiceContextKey {
    typealias Value = AttemptCounter
}
