import Foundation

/// Collects one check's violations (from several tasks at once, in the concurrency check).
// @unchecked: `found` is only touched while `lock` is held.
final class Recorder: @unchecked Sendable {
    /// Ends a check whose requirement failed (what follows would only repeat the failure).
    struct Stop: Error {}

    private let check: CacheStorageConformance.Check
    private let lock = NSLock()
    private var found: [CacheStorageConformance.Violation] = []

    init(check: CacheStorageConformance.Check) { self.check = check }

    var violations: [CacheStorageConformance.Violation] { lock.withLock { found } }

    func record(_ message: String) {
        let violation = CacheStorageConformance.Violation(check: check, message: message)
        lock.withLock { found.append(violation) }
    }

    /// Records `message` unless `condition` holds.
    func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { record(message()) }
    }

    /// Records what `actual` was unless it equals `expected`.
    func expect<T: Equatable>(_ actual: T, equals expected: T, _ what: @autoclosure () -> String) {
        if actual != expected { record("\(what()): expected \(expected), got \(actual)") }
    }

    /// The value, or the check ends here with `message` recorded.
    func require<T>(_ value: T?, _ message: @autoclosure () -> String) throws -> T {
        guard let value else {
            record(message())
            throw Stop()
        }
        return value
    }
}
