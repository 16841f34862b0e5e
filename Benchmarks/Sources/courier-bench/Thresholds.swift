import ArgumentParser
import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import Foundation

/// `courier-bench thresholds`: the counts that don't move with noise, checked against committed
/// values (as swift-nio's allocation tests do). Allocations per call for the small GET, the POST,
/// a cache hit, a miss + store, and per MiB of a download, each the median of three blocks after a
/// warm-up, against nginx (the server runs in another process, so only the client's allocations
/// count). A rise beyond the margin fails; a fall beyond it asks for the file to be updated, so a
/// gain is kept. Raw AsyncHTTPClient's counts are printed beside them as a reference, unchecked.
/// Wall time is never checked here.
struct ThresholdsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thresholds", abstract: "Allocation counts per call, checked against Benchmarks/Thresholds/allocations.json.")

    @Option(help: "The thresholds file.")
    var file = "Benchmarks/Thresholds/allocations.json"

    @Flag(help: "Write this run's counts to the file instead of checking them.")
    var update = false

    @Option(help: "Calls in each of the three measured blocks.")
    var calls = 2_000

    func run() async throws {
        guard allocationCountingWorks else { throw BenchError("allocation counting needs Linux with glibc") }
        let server = try await BenchServer.start(preferNginx: true)
        guard server.kind.hasPrefix("nginx") else {
            await server.stop()
            throw BenchError("thresholds are measured against nginx (apt-get install -y nginx): an in-process server's allocations would count")
        }
        let measured: [String: Double]
        do {
            measured = try await measureAll(server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        let url = URL(fileURLWithPath: file)
        if update {
            let committed = try? Thresholds.read(url)
            let thresholds = Thresholds(
                margin: committed?.margin ?? 0.03, margins: committed?.margins, allocationsPerCall: measured.mapValues { $0.rounded() })
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try (encoder.encode(thresholds) + Data("\n".utf8)).write(to: url)
            print("wrote \(file)")
            return
        }
        try Thresholds.read(url).check(measured)
    }

    private func measureAll(_ server: BenchServer) async throws -> [String: Double] {
        let subjects = try Subjects(baseURL: server.baseURL)
        defer { Task { await subjects.shutdown() } }
        try await subjects.checkCacheHits()
        var counts: [String: Double] = [:]
        counts["GET small, raw AHC (reference)"] = try await perCall(subjects.rawAHC) { try await $0.getSmall($1) }
        counts["GET small, Courier/AHC"] = try await perCall(subjects.courierAHC) { try await $0.getSmall($1) }
        counts["POST JSON, raw AHC (reference)"] = try await perCall(subjects.rawAHC) { subject, _ in try await subject.post() }
        counts["POST JSON, Courier/AHC"] = try await perCall(subjects.courierAHC) { subject, _ in try await subject.post() }
        counts["cache hit, one URL, Courier/AHC + HTTPCache"] = try await perCall(subjects.courierCache) { subject, _ in try await subject.getCached() }
        counts["miss + store, Courier/AHC + HTTPCache"] = try await perCall(subjects.courierMissAndStore) { subject, _ in
            try await subject.getFeed("t", missCounter.next())
        }
        counts["download per MiB, Courier/AHC"] = try await downloadPerMiB(server)
        return counts
    }

    /// The median over three blocks of `calls` of the allocations per call, after a warm-up.
    private func perCall(_ subject: Subject, _ operation: @escaping @Sendable (Subject, Int) async throws -> Void) async throws -> Double {
        for index in 0..<200 { try await operation(subject, index) }
        await subject.finishBackgroundWork?()
        var blocks: [Double] = []
        for block in 0..<3 {
            let sample = try await measure(requests: calls) {
                for index in 0..<calls { try await operation(subject, (block + 1) * calls + index) }
                await subject.finishBackgroundWork?()
                    }
            blocks.append(sample.allocationsPerRequest)
        }
        let median = blocks.sorted()[1]
        log("  \(subject.name): \(blocks.map { String(format: "%.1f", $0) }.joined(separator: " / ")) allocations a call")
        return median
    }

    /// Allocations per MiB of a 64 MiB `client.download` to a file (median of three).
    private func downloadPerMiB(_ server: BenchServer) async throws -> Double {
        let megabytes = 64
        let source = server.webRoot.appendingPathComponent("big.bin")
        try writePattern(to: source, size: Int64(megabytes) << 20)
        defer { try? FileManager.default.removeItem(at: source) }
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("courier-thresholds-\(getpid()).bin")
        defer { try? FileManager.default.removeItem(at: target) }
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: AsyncHTTPClientTransport.recommendedConfiguration)
        let client = Client(baseURL: server.baseURL, transport: AsyncHTTPClientTransport(client: http, decodesResponses: true)) { $0.timeout = .seconds(120) }
        _ = try await client.download(BigFile(), to: target)
        var blocks: [Double] = []
        for _ in 0..<3 {
            let sample = try await measure(requests: megabytes) { _ = try await client.download(BigFile(), to: target) }
            blocks.append(sample.allocationsPerRequest)
        }
        try await http.shutdown()
        log("  download: \(blocks.map { String(format: "%.1f", $0) }.joined(separator: " / ")) allocations a MiB")
        return blocks.sorted()[1]
    }
}

/// The committed counts and how far a run may rise above them.
struct Thresholds: Codable {
    /// The fraction a count may exceed its threshold by before the check fails.
    var margin: Double
    /// Wider margins for the rows whose count moves with the machine's load: a download's depends on
    /// how the kernel splits its bytes into reads (154–163 a MiB on an idle machine, 169 beside two builds).
    var margins: [String: Double]?
    var allocationsPerCall: [String: Double]

    /// The margin of one row.
    func margin(for name: String) -> Double {
        margins?[name] ?? margin
    }

    static func read(_ url: URL) throws -> Thresholds {
        try JSONDecoder().decode(Thresholds.self, from: Data(contentsOf: url))
    }

    /// Prints each count beside its threshold; throws when one rose beyond the margin or is missing.
    func check(_ measured: [String: Double]) throws {
        print("| allocations | this run | threshold | verdict |")
        print("|---|--:|--:|---|")
        var failures: [String] = []
        for name in Set(measured.keys).union(allocationsPerCall.keys).sorted() {
            guard let count = measured[name], let threshold = allocationsPerCall[name] else {
                failures.append("\(name): measured but not in the file, or in the file but not measured")
                continue
            }
            let verdict: String
            if name.hasSuffix("(reference)") {
                // The raw transport's own count: context for the others, AsyncHTTPClient's to change.
                verdict = "reference, not checked"
            } else if count > threshold * (1 + margin(for: name)) {
                verdict = "ROSE beyond \(Int(margin(for: name) * 100))%"
                failures.append("\(name): \(String(format: "%.1f", count)) against \(Int(threshold))")
            } else if count < threshold * (1 - margin(for: name)) {
                verdict = "fell: update the file to keep the gain (--update)"
            } else {
                verdict = "ok"
            }
            print("| \(name) | \(String(format: "%.1f", count)) | \(Int(threshold)) | \(verdict) |")
        }
        guard failures.isEmpty else { throw BenchError("allocation thresholds: " + failures.joined(separator: "; ")) }
    }
}
