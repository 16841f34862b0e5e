import Courier
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory lock on a file in an outbox's folder, so one folder has one outbox at a time: two
/// (an app and its extension, or two in one process) would send each other's items and delete
/// each other's body files. `flock` locks belong to an open file, so a second open in the same
/// process is refused too; the system releases the lock when its process ends, however it ends.
final class FolderLock: Sendable {
    private let path: String
    private let descriptor = Locked<Int32?>(nil)

    init(folder: URL) {
        path = folder.appendingPathComponent("outbox.lock").path
    }

    /// Takes the lock, unless this outbox has it already.
    /// - Throws: ``OutboxError/folderInUse(_:)`` when another outbox has it, ``OutboxError/storage(_:)``
    ///   when the file can't be opened.
    func acquire() throws(OutboxError) {
        let result: Result<Void, OutboxError> = descriptor.withLock { held in
            guard held == nil else { return .success(()) }
            let opened = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard opened >= 0 else { return .failure(.storage("could not open the outbox's lock file: \(String(cString: strerror(errno)))")) }
            guard flock(opened, LOCK_EX | LOCK_NB) == 0 else {
                let reason = errno
                close(opened)
                if reason == EWOULDBLOCK { return .failure(.folderInUse(URL(fileURLWithPath: path).deletingLastPathComponent().lastPathComponent)) }
                return .failure(.storage("could not lock the outbox's folder: \(String(cString: strerror(reason)))"))
            }
            held = opened
            return .success(())
        }
        try result.get()
    }

    /// Gives the lock up (closing the file releases it).
    func release() {
        descriptor.withLock { held in
            if let held { close(held) }
            held = nil
        }
    }

    deinit { release() }
}
