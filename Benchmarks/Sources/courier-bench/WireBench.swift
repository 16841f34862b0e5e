import ArgumentParser
import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import CourierTesting
import Foundation
import HTTPTypes

/// `courier-bench wire`: what the wire costs. A 2,000-row JSON with and without compression on each
/// transport (bytes nginx sent, from its access log, and time), and 32 calls in flight over HTTP/2
/// against HTTP/1.1 on TLS, and a large download to a file over each (AsyncHTTPClient; URLSession on
/// Linux can't trust the test CA).
struct WireCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "wire", abstract: "Compression and HTTP/2: bytes on the wire and time.")

    @Option(help: "Calls per measurement.")
    var calls = 400

    @Option(help: "The size in MiB of the file downloaded over TLS with HTTP/2 and HTTP/1.1 (0: no download rows).")
    var downloadMB = 1024

    func run() async throws {
        let nginx = try await WireServer.start()
        do {
            try await measure(nginx)
        } catch {
            nginx.stop()
            throw error
        }
        nginx.stop()
    }

    private func measure(_ server: WireServer) async throws {
        log("server: nginx, plain http on \(server.plain.absoluteString), TLS (h2 and http/1.1) on \(server.tls.absoluteString)")
        print("| rows JSON (\(server.rowsBytes) bytes) | bytes sent by the server, a call | time, \(calls) calls |")
        print("|---|--:|--:|")
        let subjects: [(String, any ClientTransport, HTTPFields)] = [
            ("Courier/AHC, compressed", AsyncHTTPClientTransport(), [:]),
            ("Courier/AHC, identity", AsyncHTTPClientTransport(), [.acceptEncoding: "identity"]),
            ("Courier/URLSession, as URLSession asks", URLSessionTransport(), [:]),
            ("Courier/URLSession, identity", URLSessionTransport(), [.acceptEncoding: "identity"]),
        ]
        for (name, transport, headers) in subjects {
            let client = Client(baseURL: server.plain, transport: transport) { $0.timeout = .seconds(60) }
            let endpoint = Rows(headers: headers)
            _ = try await client.send(endpoint)
            server.resetLog()
            let started = ContinuousClock.now
            for _ in 0..<calls { _ = try await client.send(endpoint) }
            let elapsed = ContinuousClock.now - started
            let sent = server.bytesSent()
            print("| \(name) | \(sent.isEmpty ? 0 : sent.reduce(0, +) / sent.count) | \(format(elapsed)) |")
        }

        print("\n| 32 in flight over TLS, Courier/AHC | time, \(calls) calls | connections |")
        print("|---|--:|--:|")
        for (name, version) in Self.versions {
            let client = try Self.tlsClient(server, version, timeout: .seconds(60))
            _ = try await client.send(Small())
            server.resetLog()
            let started = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for lane in 0..<32 {
                    group.addTask { for _ in stride(from: lane, to: calls, by: 32) { _ = try await client.send(Small()) } }
                }
                try await group.waitForAll()
            }
            let elapsed = ContinuousClock.now - started
            print("| \(name) | \(format(elapsed)) | \(server.connections()) |")
        }
        if downloadMB > 0 { try await measureDownloads(server) }
    }

    /// A large file down over TLS with each protocol: time, peak RSS above the idle process, and
    /// whether what arrived is the file (its SHA-256).
    private func measureDownloads(_ server: WireServer) async throws {
        let source = server.root.appendingPathComponent("big.bin")
        try writePattern(to: source, size: Int64(downloadMB) << 20)
        defer { try? FileManager.default.removeItem(at: source) }
        let expected = try sha256(source)
        print("\n| \(downloadMB) MiB down over TLS, Courier/AHC client.download | time | MiB/s | peak RSS above idle | SHA-256 |")
        print("|---|--:|--:|--:|---|")
        for (name, version) in Self.versions {
            let client = try Self.tlsClient(server, version, timeout: .seconds(600))
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-wire-\(getpid())-\(name.hashValue).bin")
            defer { try? FileManager.default.removeItem(at: file) }
            let idle = currentRSS()
            resetPeakRSS()
            let started = ContinuousClock.now
            _ = try await client.download(BigFile(), to: file)
            let elapsed = ContinuousClock.now - started
            let peak = Double(peakRSS() - idle) / 1_048_576
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let matches = try sha256(file) == expected
            print("| \(name) | \(format(elapsed)) | \(String(format: "%.0f", Double(downloadMB) / seconds)) | \(String(format: "+%.1f MB", peak)) | \(matches ? "matches" : "MISMATCH") |")
            guard matches else { throw BenchError("the file downloaded over \(name) is not the file served") }
        }
    }

    /// The protocols compared over TLS.
    private static let versions: [(String, HTTPClient.Configuration.HTTPVersion)] = [("HTTP/1.1", .http1Only), ("HTTP/2", .automatic)]

    /// Courier over AsyncHTTPClient to the TLS port, trusting the test CA, with `version`.
    private static func tlsClient(_ server: WireServer, _ version: HTTPClient.Configuration.HTTPVersion, timeout: Duration) throws -> Client {
        var configuration = AsyncHTTPClientTransport.recommendedConfiguration
        configuration.httpVersion = version
        let transport = try AsyncHTTPClientTransport(trust: .only(roots: [TestCertificates.caPEM]), configuration: configuration)
        return Client(baseURL: server.tls, transport: transport) { $0.timeout = timeout }
    }

    private func format(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return String(format: "%.3f s", seconds)
    }
}

private struct Rows: Endpoint {
    typealias Response = Data
    var headers: HTTPFields
    var path: EndpointPath { "/rows.json" }
}

private struct Small: Endpoint {
    typealias Response = Data
    var path: EndpointPath { "/small.json" }
}

/// nginx with gzip on a plain port and TLS (HTTP/2 and HTTP/1.1 by ALPN) on another, with the test
/// certificates; its access log records the bytes sent and the connection of every request.
private final class WireServer {
    let plain: URL
    let tls: URL
    let rowsBytes: Int
    private let process: Process
    private let directory: URL
    /// The folder nginx serves.
    var root: URL { directory.appendingPathComponent("www") }

    private init(plain: URL, tls: URL, rowsBytes: Int, process: Process, directory: URL) {
        self.plain = plain
        self.tls = tls
        self.rowsBytes = rowsBytes
        self.process = process
        self.directory = directory
    }

    static func start() async throws -> WireServer {
        guard let nginx = BenchServer.findNginx() else {
            throw BenchError("the wire bench needs nginx (apt-get install -y nginx)")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-wire-\(getpid())")
        let root = directory.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let rows = Data(("[" + (0..<2000).map { #"{"id":\#($0),"name":"user \#($0)","city":"Lyon","active":true,"score":\#($0 % 97)}"# }.joined(separator: ",") + "]").utf8)
        try rows.write(to: root.appendingPathComponent("rows.json"))
        try Data(#"{"ok":true}"#.utf8).write(to: root.appendingPathComponent("small.json"))
        try TestCertificates.leafPEM.write(to: directory.appendingPathComponent("leaf.pem"), atomically: true, encoding: .utf8)
        try TestCertificates.leafKeyPEM.write(to: directory.appendingPathComponent("leaf.key"), atomically: true, encoding: .utf8)
        let (plainPort, tlsPort) = (try freePort(), try freePort())
        let config = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(directory.path)/nginx.pid;
            error_log \(directory.path)/error.log error;
            events { worker_connections 1024; }
            http {
                log_format wire '$bytes_sent $connection';
                access_log \(directory.path)/access.log wire;
                default_type application/json;
                client_body_temp_path \(directory.path)/body;
                proxy_temp_path \(directory.path)/proxy;
                fastcgi_temp_path \(directory.path)/fastcgi;
                uwsgi_temp_path \(directory.path)/uwsgi;
                scgi_temp_path \(directory.path)/scgi;
                keepalive_requests 1000000;
                keepalive_timeout 300s;
                http2_max_concurrent_streams 128;
                gzip on;
                gzip_types application/json;
                gzip_min_length 1000;
                server { listen 127.0.0.1:\(plainPort); root \(root.path); }
                server {
                    listen 127.0.0.1:\(tlsPort) ssl http2;
                    ssl_certificate \(directory.path)/leaf.pem;
                    ssl_certificate_key \(directory.path)/leaf.key;
                    root \(root.path);
                }
            }
            """
        let process = try await BenchServer.launchNginx(nginx, config: config, directory: directory, ports: [plainPort, tlsPort])
        guard let plain = URL(string: "http://127.0.0.1:\(plainPort)"), let tls = URL(string: "https://127.0.0.1:\(tlsPort)") else {
            process.terminate()
            throw BenchError("no URLs for the wire bench's ports")
        }
        return WireServer(plain: plain, tls: tls, rowsBytes: rows.count, process: process, directory: directory)
    }

    private var logFile: URL { directory.appendingPathComponent("access.log") }

    /// Forgets the requests so far (nginx appends to the same open file).
    func resetLog() {
        // Let nginx write what it buffered, then empty the file it keeps appending to.
        if let handle = try? FileHandle(forWritingTo: logFile) {
            try? handle.truncate(atOffset: 0)
            try? handle.close()
        }
    }

    private func entries() -> [(bytes: Int, connection: String)] {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 2, let bytes = Int(parts[0]) else { return nil }
            return (bytes, String(parts[1]))
        }
    }

    /// The bytes sent for each request since the last reset (head and body, as on the wire before TLS).
    func bytesSent() -> [Int] { entries().map(\.bytes) }

    /// The connections the requests since the last reset came on.
    func connections() -> Int { Set(entries().map(\.connection)).count }

    func stop() {
        process.terminate()
        try? FileManager.default.removeItem(at: directory)
    }
}
