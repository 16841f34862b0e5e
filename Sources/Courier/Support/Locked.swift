#if canImport(os)
import os
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A value guarded by a lock, so that it can be shared between tasks and threads.
///
/// One allocation holds both the value and the lock (`NSLock` on Linux costs several, and a call
/// creates a few of these). Copies of a `Locked` share the same value, like a reference.
/// `Synchronization.Mutex` would do, but it needs macOS 15 / iOS 18; Courier supports older systems.
// @unchecked is sound: the value is only read or written between `lock()` and `unlock()` of the
// primitive stored beside it, so no two threads touch it at once. The few non-Sendable values kept
// in one (a URLSessionDataTask) are only handed out to call their own thread-safe API.
package struct Locked<Value>: @unchecked Sendable {
    private let storage: LockedStorage<Value>

    /// Wraps an initial value.
    package init(_ value: Value) {
        storage = LockedStorage.make(value)
    }

    /// Runs `body` with exclusive access to the value and returns its result.
    package func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try storage.withLock(body)
    }

    /// A copy of the current value.
    package var current: Value { withLock { $0 } }
}

#if canImport(os)
private typealias LockPrimitive = os_unfair_lock
#else
private typealias LockPrimitive = pthread_mutex_t
#endif

/// The value (header) and its lock (one element) in one heap block.
private final class LockedStorage<Value>: ManagedBuffer<Value, LockPrimitive> {
    static func make(_ value: Value) -> LockedStorage {
        let buffer = create(minimumCapacity: 1) { _ in value }
        // `create` allocates an instance of this class; the downcast only restores its static type.
        let storage = unsafeDowncast(buffer, to: LockedStorage.self)
        _ = storage.withUnsafeMutablePointerToElements { lock in
            #if canImport(os)
            lock.initialize(to: os_unfair_lock())
            #else
            // A trivial C type: `pthread_mutex_init` initialises the raw memory itself.
            pthread_mutex_init(lock, nil)
            #endif
        }
        return storage
    }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        try withUnsafeMutablePointers { value, lock in
            #if canImport(os)
            os_unfair_lock_lock(lock)
            defer { os_unfair_lock_unlock(lock) }
            #else
            pthread_mutex_lock(lock)
            defer { pthread_mutex_unlock(lock) }
            #endif
            return try body(&value.pointee)
        }
    }

    deinit {
        withUnsafeMutablePointers { _, lock in
            #if !canImport(os)
            pthread_mutex_destroy(lock)
            #endif
            _ = lock.deinitialize(count: 1)
        }
    }
}
