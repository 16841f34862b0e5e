import Courier
import CourierTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Logging
import PostgresNIO

/// A PostgreSQL server of the tests' own: `initdb` in a temporary folder, `pg_ctl start` on a
/// loopback port (as the `postgres` user when the tests run as root, which PostgreSQL refuses),
/// started once per test process on first use and stopped when the process exits. Each test
/// gets a database of its own on it.
final class ThrowawayPostgres: Sendable {
    let folder: URL
    let port: Int
    private let binaries: URL
    private let asUser: String?

    /// The server, or why there is none (no PostgreSQL installed): the tests that need it are
    /// then skipped, and say so.
    static let shared: Result<ThrowawayPostgres, Unavailable> = {
        let result = Result { try ThrowawayPostgres() }.mapError { Unavailable(reason: "\($0)") }
        switch result {
        case .success: atexit { if case .success(let server) = ThrowawayPostgres.shared { server.endAtExit() } }
        case .failure(let unavailable):
            print("⚠️  PostgreSQL tests SKIPPED: \(unavailable.reason). Install PostgreSQL (apt-get install -y postgresql) to run them.")
        }
        return result
    }()

    static var isAvailable: Bool { (try? shared.get()) != nil }

    /// A server of one test's own, for tests that stop it or freeze it; ``shutDown()`` ends it.
    static func startPrivate() async throws -> ThrowawayPostgres { try await offThePool { try ThrowawayPostgres() } }

    struct Unavailable: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    private init() throws {
        let binaries = try Self.findBinaries()
        let asUser = getuid() == 0 ? "postgres" : nil
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        if let asUser { try Self.run("/bin/chown", [asUser, folder.path]) }
        try Self.run(as: asUser, binaries.appendingPathComponent("initdb").path, [
            "-D", folder.path + "/data", "-A", "trust", "-U", "courier", "-E", "UTF8",
        ])
        var lastError: (any Error)?
        for _ in 0..<5 {
            // Below Linux's ephemeral range (32768 and up), where the tests' own servers bind port 0
            // and reconnect to ports they closed: a server there could take one of theirs.
            let port = Int.random(in: 20_000...32_000)
            do {
                try Self.run(as: asUser, binaries.appendingPathComponent("pg_ctl").path, Self.startArguments(folder, port))
                (self.binaries, self.asUser, self.folder, self.port) = (binaries, asUser, folder, port)
                return
            } catch {
                lastError = error
            }
        }
        throw lastError ?? Unavailable(reason: "pg_ctl could not start a server")
    }

    private static func startArguments(_ folder: URL, _ port: Int) -> [String] {
        [
            "-D", folder.path + "/data", "-l", folder.path + "/log", "-w", "-t", "30", "start",
            "-o", "-p \(port) -k \(folder.path) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200",
        ]
    }

    /// Stops the server now, fast (every connection cut): for the tests that take the database away.
    func stop() async {
        await Self.offThePool { self.stopNow() }
    }

    private func stopNow() {
        try? Self.run(as: asUser, binaries.appendingPathComponent("pg_ctl").path, ["-D", folder.path + "/data", "-m", "fast", "-w", "stop"])
    }

    /// Stops the server and deletes its folder.
    func shutDown() async {
        await Self.offThePool { self.removeNow() }
    }

    private func removeNow() {
        stopNow()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Ends the server without waiting (its immediate shutdown, `SIGQUIT`) and deletes its folder:
    /// at the process's exit, where starting a program and waiting for it could hang the exit
    /// (and with it the test run), and a throwaway database has nothing to save.
    private func endAtExit() {
        if let pid = try? postmasterPID(), kill(pid, SIGQUIT) == 0 {
            // Its folder goes once it has gone (for at most 5 s).
            for _ in 0 ..< 500 where kill(pid, 0) == 0 { usleep(10_000) }
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// The server's main process, from its `postmaster.pid`.
    private func postmasterPID() throws -> pid_t {
        let pidFile = folder.appendingPathComponent("data/postmaster.pid")
        guard let first = try String(contentsOf: pidFile, encoding: .utf8).split(separator: "\n").first, let pid = Int32(first) else {
            throw Unavailable(reason: "no postmaster.pid in \(folder.path)")
        }
        return pid
    }

    /// Freezes (`SIGSTOP`) or thaws (`SIGCONT`) every process of the server: a database that hangs,
    /// its connections open and silent.
    func freeze(_ frozen: Bool) async throws {
        try await Self.offThePool { try self.freezeNow(frozen) }
    }

    private func freezeNow(_ frozen: Bool) throws {
        let pid = try postmasterPID()
        let children = try ChildProcess.run("/usr/bin/pgrep", ["-P", "\(pid)"]).output
        let pids = [pid] + String(decoding: children, as: UTF8.self).split(separator: "\n").compactMap { Int32($0) }
        for process in pids { kill(process, frozen ? SIGSTOP : SIGCONT) }
    }

    /// Starts the server again on its port after ``stop()``.
    func start() async throws {
        try await Self.offThePool {
            try Self.run(as: self.asUser, self.binaries.appendingPathComponent("pg_ctl").path, Self.startArguments(self.folder, self.port))
        }
    }

    /// Runs `work`, which waits for a program, on a thread of its own: blocked there, it can't
    /// take one of the few threads every task of the test process shares.
    private static func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }

    private static func offThePool(_ work: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                work()
                continuation.resume()
            }
        }
    }

    /// The configuration of a client of `database` on this server.
    func configuration(database: String) -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: "127.0.0.1", port: port, username: "courier", password: nil, database: database, tls: .disable)
        configuration.options.minimumConnections = 0
        configuration.options.maximumConnections = 8
        configuration.options.connectTimeout = .seconds(2)
        return configuration
    }

    /// A fresh, empty database on the server; its name.
    func makeDatabase() async throws -> String {
        let name = "courier_\(UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: ""))"
        try await withClient(database: "postgres") { client in
            _ = try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"))
        }
        return name
    }

    /// Runs `body` with a running client of `database`, ended after.
    func withClient<T>(database: String, _ body: (PostgresClient) async throws -> T) async throws -> T {
        let client = PostgresClient(configuration: configuration(database: database), backgroundLogger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let running = Task { await client.run() }
        defer { running.cancel() }
        return try await body(client)
    }

    /// Runs a PostgreSQL program, as `user` when given.
    private static func run(as user: String?, _ path: String, _ arguments: [String]) throws {
        guard let user else { return try run(path, arguments) }
        let command = ([path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        try run("/bin/su", [user, "-s", "/bin/sh", "-c", command])
    }

    /// Runs a program to its end (as a ``ChildProcess``: Foundation's `Process` missed `su`'s
    /// exit under the test runner and waited forever).
    private static func run(_ path: String, _ arguments: [String]) throws {
        let (status, output) = try ChildProcess.run(path, arguments)
        guard status == 0 else {
            throw Unavailable(reason: "\(path) \(arguments.joined(separator: " ")) failed (\(status.map(String.init) ?? "signal")): \(String(decoding: output, as: UTF8.self))")
        }
    }

    /// `initdb` and `pg_ctl`: on the PATH, else Debian's versioned folder.
    private static func findBinaries() throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin"
        var candidates = path.split(separator: ":").map { URL(fileURLWithPath: String($0)) }
        let debian = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: debian.path)) ?? []
        candidates += versions.sorted(by: >).map { debian.appendingPathComponent($0).appendingPathComponent("bin") }
        for folder in candidates where FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("initdb").path)
            && FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("pg_ctl").path) {
            return folder
        }
        throw Unavailable(reason: "initdb and pg_ctl were found neither on the PATH nor in /usr/lib/postgresql/*/bin")
    }
}
