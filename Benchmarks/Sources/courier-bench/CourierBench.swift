import ArgumentParser
import Foundation

/// `courier-bench`: what Courier costs over its transport, measured in one run.
@main
struct CourierBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "courier-bench",
        abstract: "Measures Courier against raw AsyncHTTPClient and URLSession on a local server.",
        subcommands: [Macro.self, Micro.self, Soak.self, TransferCommand.self, WireCommand.self, ThresholdsCommand.self, PostgresBenchCommand.self, PostgresMemberCommand.self, OutboxBenchCommand.self, RedrawChart.self],
        defaultSubcommand: Macro.self
    )
}

/// Options every subcommand shares.
struct CommonOptions: ParsableArguments {
    @Option(help: "Directory for results.json, results.md and chart.svg.")
    var output = "bench-results"

    @Option(help: "Server: auto (nginx if installed, else the embedded MockServer), nginx or mock.")
    var server = "auto"

    func startServer() async throws -> BenchServer {
        if server == "nginx" || server == "auto" {
            let started = try await BenchServer.start(preferNginx: true)
            if server == "nginx", !started.kind.hasPrefix("nginx") {
                await started.stop()
                throw BenchError("nginx was requested but could not be started")
            }
            return started
        }
        return try await BenchServer.start(preferNginx: false)
    }

    func outputDirectory() throws -> URL {
        let url = URL(fileURLWithPath: output, isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

func log(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

func writeJSON(_ value: some Encodable, to url: URL) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode(value).write(to: url)
}

var commandLine: String { (["courier-bench"] + CommandLine.arguments.dropFirst()).joined(separator: " ") }
