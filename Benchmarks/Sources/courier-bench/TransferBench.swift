import ArgumentParser
import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import CourierCache
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// `courier-bench transfer`: a large download to a file and a large file upload, Courier against raw
/// AsyncHTTPClient (its `FileDownloadDelegate`, and a streamed request body read 64 KiB at a time) on
/// nginx, with throughput, peak RSS above the idle process, and the SHA-256 of what arrived.
struct TransferCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "transfer", abstract: "Large downloads and uploads: raw AHC vs Courier.")

    @OptionGroup var common: CommonOptions

    @Option(help: "The file's size in MiB.")
    var sizeMB = 1024

    @Option(help: "Runs per subject (the median time and the highest peak RSS are reported).")
    var rounds = 3

    @Option(help: "Only the subjects whose name contains this text (e.g. URLSession).")
    var only: String?

    func run() async throws {
        let server = try await BenchServer.start(preferNginx: true)
        guard server.kind.hasPrefix("nginx") else {
            await server.stop()
            throw BenchError("the transfer bench needs nginx (apt-get install -y nginx): it serves the file and stores the uploads")
        }
        do {
            try await measure(on: server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    private func measure(on server: BenchServer) async throws {
        let size = Int64(sizeMB) << 20
        let source = server.webRoot.appendingPathComponent("big.bin")
        try writePattern(to: source, size: size)
        let expected = try sha256(source)
        log("server: \(server.kind); file: \(sizeMB) MiB, sha256 \(expected.prefix(16))…")

        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        let client = Client(baseURL: server.baseURL, transport: AsyncHTTPClientTransport(client: http)) { $0.timeout = .seconds(60) }
        let urlSession = Client(baseURL: server.baseURL, transport: URLSessionTransport()) { $0.timeout = .seconds(60) }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("courier-transfer-\(getpid())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let url = server.baseURL.absoluteString
        // A download the endpoint lets the cache keep: stored from its file on the first call, then
        // served from the store. SQLite holds at most 1e9 bytes in one value: larger files pass by.
        let store = try SQLiteCacheStorage(fileURL: scratch.appendingPathComponent("cache/downloads.sqlite"), maximumSize: Int(size) * 2)
        let cached = Client(baseURL: server.baseURL, transport: AsyncHTTPClientTransport(client: http), middlewares: [HTTPCache(storage: store)]) {
            $0.timeout = .seconds(60)
        }
        let cacheable = size <= 1_000_000_000

        var subjects: [(name: String, run: @Sendable (Int) async throws -> URL)] = [
            ("download: raw AHC (FileDownloadDelegate)", { round in
                let file = scratch.appendingPathComponent("raw-\(round).bin")
                let delegate = try FileDownloadDelegate(path: file.path)
                _ = try await http.execute(request: try HTTPClient.Request(url: url + "/big.bin"), delegate: delegate).get()
                return file
            }),
            ("download: Courier/AHC", { round in
                let file = scratch.appendingPathComponent("courier-\(round).bin")
                return try await client.download(BigFile(), to: file).value
            }),
        ]
        if cacheable {
            subjects += [
                // The copy into the store runs before the download returns.
                ("download: Courier/AHC + HTTPCache, network, then the copy into the store", { @Sendable round in
                    let file = scratch.appendingPathComponent("stored-\(round).bin")
                    let downloaded = try await cached.download(BigFile(), to: file, cachePolicy: .networkOnly).value
                    return downloaded
                }),
                ("download: Courier/AHC + HTTPCache, from the store", { @Sendable round in
                    let file = scratch.appendingPathComponent("from-store-\(round).bin")
                    let response = try await cached.download(BigFile(), to: file, cachePolicy: .alwaysUseCache)
                    guard response.source == .cache else { throw BenchError("the cached download came from \(response.source)") }
                    return response.value
                }),
            ]
        } else {
            log("  (the HTTPCache rows need --size-mb 953 or less: SQLite stores at most 1e9 bytes in one value)")
        }
        // After the AHC rows: glibc keeps what URLSession's rounds allocated, and peak RSS is measured from there.
        subjects += [
            ("download: Courier/URLSession", { @Sendable round in
                let file = scratch.appendingPathComponent("urlsession-\(round).bin")
                return try await urlSession.download(BigFile(), to: file).value
            }),
            // A reader slower than the network (10 ms of work a MiB, ≤ 100 MiB/s): what waits for it
            // must not be the body.
            ("stream, slow reader: Courier/URLSession (bytes(for:))", { @Sendable round in
                try await readSlowly(urlSession, into: scratch.appendingPathComponent("slow-urlsession-\(round).bin"))
            }),
            ("stream, slow reader: Courier/AHC (bytes(for:))", { @Sendable round in
                try await readSlowly(client, into: scratch.appendingPathComponent("slow-ahc-\(round).bin"))
            }),
            ("upload: raw AHC (streamed file)", { @Sendable round in
                var request = HTTPClientRequest(url: url + "/upload/raw-\(round).bin")
                request.method = .PUT
                request.body = .stream(FileBuffers(file: source), length: .known(size))
                let response = try await http.execute(request, timeout: .seconds(600))
                guard (200..<300).contains(response.status.code) else { throw BenchError("raw upload: \(response.status)") }
                return server.webRoot.appendingPathComponent("upload/raw-\(round).bin")
            }),
            ("upload: Courier/AHC (RequestBody.file)", { @Sendable round in
                _ = try await client.send(PutFile(name: "courier-\(round).bin", file: source))
                return server.webRoot.appendingPathComponent("upload/courier-\(round).bin")
            }),
            ("upload: Courier/URLSession (RequestBody.file)", { @Sendable round in
                _ = try await urlSession.send(PutFile(name: "urlsession-\(round).bin", file: source))
                return server.webRoot.appendingPathComponent("upload/urlsession-\(round).bin")
            }),
        ]

        if let only { subjects = subjects.filter { $0.name.contains(only) } }
        let idle = currentRSS()
        var rows: [TransferRow] = []
        for subject in subjects {
            var seconds: [Double] = []
            var peak = 0
            var verified = true
            for round in 0..<rounds {
                resetPeakRSS()
                let started = ContinuousClock.now
                let file = try await subject.run(round)
                let elapsed = ContinuousClock.now - started
                let roundPeak = peakRSS()
                log("    round \(round + 1): peak RSS +\(String(format: "%.1f", Double(roundPeak - idle) / 1_048_576)) MB")
                peak = max(peak, roundPeak)
                seconds.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
                verified = try verified && sha256(file) == expected
                try? FileManager.default.removeItem(at: file)
            }
            let median = seconds.sorted()[seconds.count / 2]
            let row = TransferRow(subject: subject.name, seconds: median, megabytesPerSecond: Double(sizeMB) / median, peakAboveIdleMB: Double(peak - idle) / 1_048_576, sha256Matches: verified)
            log("  \(row.subject): \(String(format: "%.2f s, %.1f MiB/s, peak RSS +%.1f MB", row.seconds, row.megabytesPerSecond, row.peakAboveIdleMB)), sha256 \(row.sha256Matches ? "ok" : "MISMATCH")")
            rows.append(row)
        }
        await store.close()
        try await http.shutdown()

        let report = TransferReport(date: isoDate(), server: server.kind, sizeMB: sizeMB, rounds: rounds, idleRSSMB: Double(idle) / 1_048_576, rows: rows)
        let output = try common.outputDirectory()
        try writeJSON(report, to: output.appendingPathComponent("transfer.json"))
        let table = report.markdown()
        try table.write(to: output.appendingPathComponent("transfer.md"), atomically: true, encoding: .utf8)
        print(table)
        if rows.contains(where: { !$0.sha256Matches }) { throw BenchError("a transferred file's SHA-256 did not match") }
    }
}

/// Reads `GET /big.bin` through `bytes(for:)` into `file`, pausing 10 ms after each MiB.
private func readSlowly(_ client: Client, into file: URL) async throws -> URL {
    let response = try await client.bytes(for: BigFile())
    guard FileManager.default.createFile(atPath: file.path, contents: nil) else { throw BenchError("cannot create \(file.path)") }
    let handle = try FileHandle(forWritingTo: file)
    defer { try? handle.close() }
    var sinceRest = 0
    for try await chunk in response.value {
        try handle.write(contentsOf: chunk)
        sinceRest += chunk.count
        if sinceRest >= 1 << 20 {
            sinceRest = 0
            try await Task.sleep(for: .milliseconds(10))
        }
    }
    return file
}

/// `GET /big.bin`.
struct BigFile: Endpoint {
    typealias Response = Data
    var path: EndpointPath { "/big.bin" }
}

/// `PUT /upload/{name}` with a file.
private struct PutFile: Endpoint {
    typealias Response = Data
    var name: String
    var file: URL
    var method: HTTPRequest.Method { .put }
    var path: EndpointPath { "/upload/\(name)" }
    var body: RequestBody? { .file(file) }
}

/// A file as `ByteBuffer`s of 64 KiB (what Courier's file body reads at a time), for raw AHC.
private struct FileBuffers: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let file: URL

    func makeAsyncIterator() -> Iterator { Iterator(handle: try? FileHandle(forReadingFrom: file)) }

    struct Iterator: AsyncIteratorProtocol {
        let handle: FileHandle?
        mutating func next() async throws -> ByteBuffer? {
            guard let handle, let data = try handle.read(upToCount: 64 << 10), !data.isEmpty else {
                try handle?.close()
                return nil
            }
            return ByteBuffer(bytes: data)
        }
    }
}

struct TransferRow: Codable, Sendable {
    var subject: String
    var seconds: Double
    var megabytesPerSecond: Double
    var peakAboveIdleMB: Double
    var sha256Matches: Bool
}

struct TransferReport: Codable, Sendable {
    var date: String
    var server: String
    var sizeMB: Int
    var rounds: Int
    var idleRSSMB: Double
    var rows: [TransferRow]

    /// The table, each Courier row with its throughput as a ratio of the raw row of its direction.
    func markdown() -> String {
        var lines = [
            "\(sizeMB) MiB over \(server), median of \(rounds); process idle at \(String(format: "%.0f", idleRSSMB)) MB RSS",
            "",
            "| subject | time | throughput | vs raw AHC | peak RSS above idle | SHA-256 |",
            "|---|---|---|---|---|---|",
        ]
        for row in rows {
            let direction = row.subject.prefix { $0 != ":" }
            let raw = rows.first { $0.subject.hasPrefix(direction) && $0.subject.contains("raw") }
            let ratio = raw.map { String(format: "%.2f×", row.megabytesPerSecond / $0.megabytesPerSecond) } ?? "—"
            lines.append(String(
                format: "| %@ | %.2f s | %.0f MiB/s | %@ | %.1f MB | %@ |", row.subject as NSString, row.seconds, row.megabytesPerSecond,
                ratio as NSString, row.peakAboveIdleMB, (row.sha256Matches ? "matches" : "MISMATCH") as NSString
            ))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Writes `size` bytes of a non-repeating pattern, 1 MiB at a time.
func writePattern(to file: URL, size: Int64) throws {
    guard FileManager.default.createFile(atPath: file.path, contents: nil) else { throw BenchError("cannot create \(file.path)") }
    let handle = try FileHandle(forWritingTo: file)
    defer { try? handle.close() }
    var written: Int64 = 0
    while written < size {
        let count = Int(min(1 << 20, size - written))
        let block = Data((0..<count).map { UInt8(truncatingIfNeeded: (Int(written) + $0) &* 2_654_435_761 >> 13) })
        try handle.write(contentsOf: block)
        written += Int64(count)
    }
}

/// The file's SHA-256, by coreutils' `sha256sum`.
func sha256(_ file: URL) throws -> String {
    let process = Process()
    let pipe = Pipe()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    process.arguments = [file.path]
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: output, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
}
