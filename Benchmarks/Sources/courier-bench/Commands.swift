import ArgumentParser
import Foundation

/// The macro scenarios (the default), optionally followed by the micro-benchmarks.
struct Macro: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "macro", abstract: "Raw vs Courier over a local server (default).")

    @OptionGroup var common: CommonOptions

    @Option(help: "Measured rounds per scenario (the median is reported; at least 3).")
    var rounds = 9

    @Option(help: "Requests in the sequential and concurrent GET scenarios.")
    var requests = 1000

    @Option(help: "Requests in flight in the concurrent scenario.")
    var concurrency = 32

    @Option(help: "GETs of the 1 MB array per round.")
    var largeRequests = 20

    @Option(help: "POSTs per round.")
    var postRequests = 500

    @Option(help: "Cache hits (and raw network GETs) per round.")
    var cacheRequests = 3000

    @Option(help: "Run only these scenarios (comma-separated: sequential,concurrent,large,post,cache,cache-store,cache-miss,cache-bytes).")
    var only: String?

    @Option(help: "Run only these clients (comma-separated names as in the table, e.g. 'raw AHC,Courier/AHC'); for profiling one client.")
    var clients: String?

    @Flag(help: "Also run 'raw AHC (control)': the raw AHC code again, compared with itself, to show the bench's own bias and noise.")
    var control = false

    @Flag(help: "Also run partial Courier stacks in the small-GET scenarios ('AHC + Courier body read', 'AHC transport alone', 'URLSession transport alone'): where the overhead comes from.")
    var breakdown = false

    @Flag(help: "Also run 'Courier/AHC + telemetry (no-op)' in the small-GET scenarios: both telemetry middlewares with the default no-op backends.")
    var telemetry = false

    @Flag(help: "Skip the micro-benchmarks that otherwise follow the macro table.")
    var skipMicro = false

    func run() async throws {
        guard rounds >= 3 else { throw ValidationError("--rounds must be at least 3") }
        let server = try await common.startServer()
        let subjects: Subjects
        do { subjects = try Subjects(baseURL: server.baseURL) } catch {
            await server.stop()
            throw error
        }
        log("server: \(server.kind) at \(server.baseURL.absoluteString)")
        log("allocation counting: \(allocationCountingWorks ? "on (interposed malloc family)" : "OFF (not Linux/glibc)")")
        let results: [SubjectResult]
        do {
            try await subjects.checkCacheHits()
            let sizes = MacroSizes(
                requests: requests, concurrency: concurrency, largeRequests: largeRequests, postRequests: postRequests,
                cacheRequests: cacheRequests, control: control, breakdown: breakdown, telemetry: telemetry
            )
            let wanted = only.map { Set($0.split(separator: ",").map(String.init)) }
            // A name with a comma of its own ("… miss, not stored") is taken whole.
            let chosen = clients.map { Set($0.split(separator: ",").map(String.init) + [$0]) }
            let scenarios = macroScenarios(subjects, sizes: sizes)
                .filter { wanted?.contains($0.id) ?? true }
                .map { scenario in
                    var scenario = scenario
                    scenario.subjects = scenario.subjects.filter { chosen?.contains($0.name) ?? true }
                    return scenario
                }
                .filter { !$0.subjects.isEmpty }
            results = try await runMacro(scenarios, rounds: rounds, warmup: 100, log: log)
        } catch {
            await subjects.shutdown()
            await server.stop()
            throw error
        }
        await subjects.shutdown()
        await server.stop()

        var checks = macroGuardRails(results)
        var micro: [MicroResult]?
        var microLines: [String] = []
        if !skipMicro {
            log("• micro-benchmarks")
            let microResults = try await runMicro(try microCases(iterations: 20_000), rounds: rounds)
            let derived = microFigures(microResults)
            checks += derived.checks
            microLines = derived.lines
            micro = microResults
        }

        let report = RunReport(
            date: isoDate(), machine: .current, server: server.kind, command: commandLine, roundsPerScenario: rounds,
            allocationCounting: allocationCountingWorks ? "malloc/calloc/realloc/posix_memalign/aligned_alloc/memalign calls, all threads" : "unavailable",
            results: results, targets: checks, micro: micro
        )
        let directory = try common.outputDirectory()
        try writeJSON(report, to: directory.appendingPathComponent("results.json"))
        try svgChart(of: report).write(to: directory.appendingPathComponent("chart.svg"), atomically: true, encoding: .utf8)
        var markdown = "Run \(report.date) · \(report.machine.cores) cores · Swift \(report.machine.swift) · \(report.machine.os) · server: \(server.kind) · `\(commandLine)`\n\n"
        markdown += markdownTable(results) + "\n"
        let cacheLines = cacheSummary(results)
        if !cacheLines.isEmpty { markdown += "\n" + cacheLines.map { "- " + $0 }.joined(separator: "\n") + "\n" }
        if let micro { markdown += "\n" + microMarkdown(micro) + "\n\n" + microLines.map { "- " + $0 }.joined(separator: "\n") + "\n" }
        markdown += "\nGuard rails (wall and CPU move with the machine: read, never gated):\n\n" + checks.map { "- \($0.met ? "✓" : "✗") \($0.target): \($0.measured)" }.joined(separator: "\n") + "\n"
        try markdown.write(to: directory.appendingPathComponent("results.md"), atomically: true, encoding: .utf8)

        print("Courier benchmark · \(runSummary(report))")
        print("medians of \(rounds) interleaved rounds; ×raw = median of per-round ratios to the raw transport in this run\n")
        print(consoleTable(results))
        if !cacheLines.isEmpty { print("\nCache, per call:\n" + cacheLines.joined(separator: "\n")) }
        if let micro {
            print("\n" + microTable(micro))
            for line in microLines { print(line) }
        }
        print("\nGuard rails (read, never gated; allocations are gated by `courier-bench thresholds`):\n" + targetLines(checks))
        print("\nWrote \(directory.path)/results.json, results.md, chart.svg")
    }
}

/// The micro-benchmarks alone (no server).
struct Micro: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "micro", abstract: "The hot path without a network.")

    @OptionGroup var common: CommonOptions

    @Option(help: "Iterations per round of the cheap cases (the 1 MB decode runs iterations/2000).")
    var iterations = 50_000

    @Option(help: "Rounds (the median is reported).")
    var rounds = 9

    @Option(help: "Run only the cases whose name contains this text (for profiling one case under callgrind).")
    var filter: String?

    func run() async throws {
        let cases = try microCases(iterations: iterations).filter { filter.map($0.name.contains) ?? true }
        let results = try await runMicro(cases, rounds: rounds)
        let derived = microFigures(results)
        print(microTable(results))
        for line in derived.lines { print(line) }
        let directory = try common.outputDirectory()
        try writeJSON(results, to: directory.appendingPathComponent("micro.json"))
    }
}

/// 100,000 requests through one client with RSS sampled: is memory flat after warm-up?
struct Soak: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "soak", abstract: "Leak check: RSS over many requests.")

    @OptionGroup var common: CommonOptions

    @Option(help: "Requests in total.")
    var requests = 100_000

    @Option(help: "Sample RSS every this many requests.")
    var every = 10_000

    @Option(help: "Requests in flight.")
    var concurrency = 16

    @Option(help: "What sends: courier-ahc (Courier over AsyncHTTPClient), courier-coalescing (the same through in-flight coalescing), raw-ahc, ahc-body-read or ahc-transport (the partial stacks of --breakdown), or courier-noop (no network).")
    var client = "courier-ahc"

    func run() async throws {
        let server = try await common.startServer()
        log("server: \(server.kind)")
        let report: SoakReport
        do {
            report = try await runSoak(
                server: server, total: requests, every: every, concurrency: concurrency, subject: client, log: log
            )
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        let directory = try common.outputDirectory()
        try writeJSON(report, to: directory.appendingPathComponent("soak.json"))
        print("soak: \(report.subject), \(report.requests) requests, \(report.concurrency) in flight, server \(report.server)")
        for sample in report.samples {
            print(String(format: "%8d  RSS %7.1f MB  live allocations %lld", sample.requests, Double(sample.rssBytes) / 1_048_576, sample.liveAllocations))
        }
        print(String(
            format: "growth after warm-up (sample 2 → last): %+.1f MB RSS, %+lld live allocations → %@",
            Double(report.growthAfterWarmupBytes) / 1_048_576, report.liveAllocationGrowthAfterWarmup, report.flat ? "FLAT" : "GROWING"
        ))
    }
}

/// Redraws the chart of an earlier run from its `results.json`.
struct RedrawChart: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "chart", abstract: "Redraw chart.svg from a run's results.json.")

    @Argument(help: "The results.json a run wrote.")
    var input: String

    @Option(help: "Where to write the SVG.")
    var output = "chart.svg"

    func run() throws {
        let report = try JSONDecoder().decode(RunReport.self, from: Data(contentsOf: URL(fileURLWithPath: input)))
        try svgChart(of: report).write(to: URL(fileURLWithPath: output), atomically: true, encoding: .utf8)
    }
}
