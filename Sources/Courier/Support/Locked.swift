import Foundation

/// A value guarded by a lock, so that it can be shared between tasks and threads.
///
/// `Synchronization.Mutex` would do, but it needs macOS 15 / iOS 18; Courier supports older systems.
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked is sound: `value` is only read or written inside `lock.lock()`/`unlock()`,
    // so no two threads touch it at once.
    private let lock = NSLock()
    private var value: Value

    /// Wraps an initial value.
    package init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value and returns its result.
    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// A copy of the current value.
    package var current: Value { withLock { $0 } }
}
