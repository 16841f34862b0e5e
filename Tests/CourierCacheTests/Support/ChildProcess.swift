#if os(Linux) || os(macOS)
import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A program run beside the tests, started with `posix_spawn`.
///
/// Not Foundation's `Process`: on Linux its `run()` reads `/proc/self/fd` past the end of a
/// directory entry and crashes now and then while other tests open and close descriptors
/// (swift-corelibs-foundation#5472, not in Swift 6.3.1). The child inherits the descriptors that
/// are not close-on-exec; a child that runs for long should close them first.
struct ChildProcess {
    let pid: pid_t

    /// Starts `executable` with `arguments` and a minimal environment.
    init(_ executable: String, _ arguments: [String]) throws {
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = [strdup("PATH=/usr/bin:/bin"), nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, nil, nil, argv, envp)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
        self.pid = pid
    }

    /// Waits for the child to end; its exit code, or nil when a signal ended it.
    func exitCode() async -> Int32? {
        let pid = pid
        return await withCheckedContinuation { continuation in
            // `waitpid` blocks: on a thread of its own, not the cooperative pool.
            DispatchQueue.global().async {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1, errno == EINTR {}
                let exited = status & 0x7f == 0
                continuation.resume(returning: exited ? (status >> 8) & 0xff : nil)
            }
        }
    }
}
#endif
