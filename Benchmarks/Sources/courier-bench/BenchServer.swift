import CourierTesting
import Foundation

/// The local HTTP server the macro scenarios run against: nginx when installed, else the embedded MockServer.
///
/// nginx runs in its own process with one worker, so its CPU never counts as the client's and it
/// serves far faster than the clients under test (wrk reaches ~80k req/s on this machine); the
/// MockServer shares the process and the cores with the clients, which makes ratios less telling.
// @unchecked: every stored property is a `let`; the one non-Sendable value, the nginx `Process`,
// is only touched by `stop()`, which the benchmark calls once, after every scenario has finished.
final class BenchServer: @unchecked Sendable {
    let kind: String
    let baseURL: URL
    /// The folder nginx serves (where the transfer bench puts its file and finds the uploads).
    var webRoot: URL { directory.appendingPathComponent("www") }
    private let process: Process?
    private let mock: MockServer?
    private let directory: URL

    private init(kind: String, baseURL: URL, process: Process?, mock: MockServer?, directory: URL) {
        self.kind = kind
        self.baseURL = baseURL
        self.process = process
        self.mock = mock
        self.directory = directory
    }

    static func start(preferNginx: Bool = true) async throws -> BenchServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-bench-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("www"), withIntermediateDirectories: true)
        try Fixtures.write(into: directory.appendingPathComponent("www"))
        if preferNginx, let nginx = findNginx() {
            do {
                return try await startNginx(nginx, directory: directory)
            } catch {
                FileHandle.standardError.write(Data("nginx failed to start (\(error)); using the embedded MockServer\n".utf8))
            }
        }
        let mock = try await MockServer.start()
        mock.route("GET", Fixtures.smallPath, respond: .bytes([UInt8](Fixtures.small), contentType: "application/json"))
        mock.route("GET", Fixtures.largePath, respond: .bytes([UInt8](Fixtures.large), contentType: "application/json"))
        mock.route(
            "GET", Fixtures.cachedPath,
            respond: .bytes([UInt8](Fixtures.cached), contentType: "application/json")
                .adding(header: "Cache-Control", value: "max-age=\(Fixtures.cacheMaxAge)")
        )
        mock.route("POST", Fixtures.postPath, respond: .bytes([UInt8](Fixtures.postAnswer), contentType: "application/json"))
        return BenchServer(kind: "MockServer (embedded SwiftNIO, same process)", baseURL: mock.baseURL, process: nil, mock: mock, directory: directory)
    }

    func stop() async {
        if let process, process.isRunning {
            // Poll rather than `waitUntilExit()`, which spins a run loop on Linux.
            process.terminate()
            for _ in 0..<60 where process.isRunning { try? await Task.sleep(for: .milliseconds(50)) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        try? await mock?.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Starts nginx with `config` (written into `directory`) and waits until every one of `ports` accepts connections.
    static func launchNginx(_ executable: String, config: String, directory: URL, ports: [Int]) async throws -> Process {
        let configFile = directory.appendingPathComponent("nginx.conf")
        try config.write(to: configFile, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-e", "\(directory.path)/error.log", "-p", directory.path, "-c", configFile.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<100 {
            if ports.allSatisfy(canConnect(port:)) { return process }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.terminate()
        throw BenchError("nginx did not start on ports \(ports)")
    }

    static func findNginx() -> String? {
        ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx", "/usr/local/bin/nginx"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    private static func startNginx(_ executable: String, directory: URL) async throws -> BenchServer {
        let port = try freePort()
        let root = directory.appendingPathComponent("www").path
        let config = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(directory.path)/nginx.pid;
            error_log \(directory.path)/error.log error;
            events { worker_connections 1024; }
            http {
                access_log off;
                default_type application/json;
                client_body_temp_path \(directory.path)/body;
                proxy_temp_path \(directory.path)/proxy;
                fastcgi_temp_path \(directory.path)/fastcgi;
                uwsgi_temp_path \(directory.path)/uwsgi;
                scgi_temp_path \(directory.path)/scgi;
                keepalive_requests 1000000;
                keepalive_timeout 300s;
                sendfile on;
                tcp_nodelay on;
                server {
                    listen 127.0.0.1:\(port);
                    root \(root);
                    location = \(Fixtures.cachedPath) { add_header Cache-Control "max-age=\(Fixtures.cacheMaxAge)"; }
                    location = \(Fixtures.postPath) { return 200 '{"ok":true}'; }
                    # The transfer bench's uploads land here as files (WebDAV PUT), to be checked.
                    location /upload/ { dav_methods PUT; create_full_put_path on; client_max_body_size 0; }
                }
            }
            """
        let process = try await launchNginx(executable, config: config, directory: directory, ports: [port])
        guard let url = URL(string: "http://127.0.0.1:\(port)") else {
            process.terminate()
            throw BenchError("no URL for port \(port)")
        }
        return BenchServer(kind: "nginx \(nginxVersion(executable)) (1 worker, separate process)", baseURL: url, process: process, mock: nil, directory: directory)
    }

    private static func nginxVersion(_ executable: String) -> String {
        let process = Process()
        let pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-v"]
        process.standardError = pipe
        process.standardOutput = pipe
        guard (try? process.run()) != nil else { return "" }
        process.waitUntilExit()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return text.split(separator: "/").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
