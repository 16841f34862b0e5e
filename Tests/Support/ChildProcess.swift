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
/// (swift-corelibs-foundation#5472, not in Swift 6.3.1; it crashed a whole test run here, inside a
/// compression test's `gzip`). The child inherits no descriptor beyond its standard three where
/// the C library can close them (glibc 2.34 and later): a server it starts (PostgreSQL's, which
/// outlives it) would otherwise hold the tests' sockets open, and a port a test closed would
/// still accept connections.
package struct ChildProcess {
    package let pid: pid_t

    /// Starts `executable` with `arguments` and a minimal environment (`PATH` and `environment`);
    /// `input` and `output` name files for its standard input and output (its standard error goes
    /// nowhere when `output` is set).
    package init(
        _ executable: String, _ arguments: [String], input: String? = nil, output: String? = nil, environment: [String: String] = [:]
    ) throws {
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let variables = ["PATH=/usr/bin:/bin"] + environment.map { "\($0.key)=\($0.value)" }
        let envp = variables.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        #if canImport(Glibc)
        var actions = posix_spawn_file_actions_t()
        #else
        var actions: posix_spawn_file_actions_t?
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let input { posix_spawn_file_actions_addopen(&actions, 0, input, O_RDONLY, 0) }
        if let output {
            posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        Self.closeInheritedDescriptors(&actions)
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EINVAL) }
        self.pid = pid
    }

    /// Adds glibc's `posix_spawn_file_actions_addclosefrom_np(actions, 3)`, found at run time (Swift's
    /// Glibc module doesn't declare it); nothing where the C library lacks it.
    #if canImport(Glibc)
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
    }
    #else
    private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t?) {}
    #endif

    /// Waits for the child to end; its exit code, or nil when a signal ended it.
    package func exitCode() async -> Int32? {
        let pid = pid
        return await withCheckedContinuation { continuation in
            // `waitpid` blocks: on a thread of its own, not the cooperative pool.
            DispatchQueue.global().async { continuation.resume(returning: Self.wait(for: pid)) }
        }
    }

    /// Runs `executable` to its end with `data` as its standard input: its exit code and output.
    /// For short programs only (a compressor): it waits on the calling thread.
    package static func run(_ executable: String, _ arguments: [String], input data: Data = Data()) throws -> (status: Int32?, output: Data) {
        let folder = FileManager.default.temporaryDirectory
        let input = folder.appendingPathComponent("courier-child-in-\(UUID().uuidString)")
        let output = folder.appendingPathComponent("courier-child-out-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(at: input)
            try? FileManager.default.removeItem(at: output)
        }
        try data.write(to: input)
        let child = try ChildProcess(executable, arguments, input: input.path, output: output.path)
        let status = wait(for: child.pid)
        return (status, (try? Data(contentsOf: output)) ?? Data())
    }

    private static func wait(for pid: pid_t) -> Int32? {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        let exited = status & 0x7f == 0
        return exited ? (status >> 8) & 0xff : nil
    }
}
#endif
