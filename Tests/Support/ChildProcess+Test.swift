#if os(Linux) || os(macOS)
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ChildProcess {
    /// Whether this test binary can run one of its own tests in a process of its own (Linux: not
    /// where `/proc/self/exe` doesn't name it).
    package static var canRunATest: Bool { FileManager.default.fileExists(atPath: "/proc/self/exe") }

    /// Runs the tests of this binary that `filter` names in a process of their own, with
    /// `environment` (how such a test knows it is the child) and this process's Thread Sanitizer
    /// options (its suppressions): a trap or a hang there fails only the test that asked. Killed
    /// when it passes `bound`.
    /// - Returns: Its exit code (nil when a signal ended it; 66 when Thread Sanitizer reported a
    ///   race, run it alone to see it) and its standard output.
    package static func runTest(
        _ filter: String, environment: [String: String], bound: Duration
    ) async throws -> (status: Int32?, output: String) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("courier-child-test-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        var environment = environment
        environment["TSAN_OPTIONS"] = ProcessInfo.processInfo.environment["TSAN_OPTIONS"]
        let child = try ChildProcess(
            "/proc/self/exe", ["--testing-library", "swift-testing", "--filter", filter], output: output.path, environment: environment)
        let watchdog = Task {
            try await Task.sleep(for: bound)
            kill(child.pid, SIGKILL)
        }
        let status = await child.exitCode()
        watchdog.cancel()
        return (status, (try? String(contentsOf: output, encoding: .utf8)) ?? "")
    }

    /// A line straight to standard output, unbuffered: the parent reads it even after a trap.
    package static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
#endif
