import Foundation

/// The medians of one subject in one scenario, with ratios to its raw transport.
struct SubjectResult: Codable, Sendable {
    var scenario: String
    var scenarioTitle: String
    var subject: String
    var baseline: String?
    var requests: Int
    var rounds: [Sample]
    var wallSeconds: Double
    var cpuMicrosecondsPerRequest: Double
    var requestsPerSecond: Double
    var allocationsPerRequest: Double
    var contextSwitchesPerRequest: Double
    var peakRSSBytes: Int
    var ratios: Ratios?

    struct Ratios: Codable, Sendable {
        var wall: Double
        var cpu: Double
        var requestsPerSecond: Double
        var allocations: Double
        /// Allocations per request above the baseline's.
        var extraAllocations: Double
        /// Context switches of the process per request above the baseline's.
        var extraContextSwitches: Double
        var peakRSS: Double
        /// CPU time per request above the baseline's, in µs.
        var cpuOverheadMicroseconds: Double
    }

    init(scenario: Scenario, subject: Subject, rounds: [Sample]) {
        self.scenario = scenario.id
        self.scenarioTitle = scenario.title
        self.subject = subject.name
        self.baseline = subject.baseline
        self.requests = scenario.requests
        self.rounds = rounds
        wallSeconds = median(rounds.map(\.wallSeconds))
        cpuMicrosecondsPerRequest = median(rounds.map(\.cpuPerRequest)) * 1e6
        requestsPerSecond = Double(scenario.requests) / wallSeconds
        allocationsPerRequest = median(rounds.map(\.allocationsPerRequest))
        contextSwitchesPerRequest = median(rounds.map(\.contextSwitchesPerRequest))
        peakRSSBytes = rounds.map(\.peakRSSBytes).max() ?? 0
    }

    /// Ratios to `base`. Wall and CPU are the medians of per-round ratios: round *i* of both ran
    /// back to back, so each pair saw the same load on this shared machine, which a ratio of two
    /// medians taken seconds apart does not.
    mutating func compare(with base: SubjectResult) {
        func ratio(_ a: Double, _ b: Double) -> Double { b == 0 ? 0 : a / b }
        let pairs = zip(rounds, base.rounds)
        ratios = Ratios(
            wall: median(pairs.map { ratio($0.wallSeconds, $1.wallSeconds) }),
            cpu: median(pairs.map { ratio($0.cpuPerRequest, $1.cpuPerRequest) }),
            requestsPerSecond: ratio(requestsPerSecond, base.requestsPerSecond),
            allocations: ratio(allocationsPerRequest, base.allocationsPerRequest),
            extraAllocations: allocationsPerRequest - base.allocationsPerRequest,
            extraContextSwitches: contextSwitchesPerRequest - base.contextSwitchesPerRequest,
            peakRSS: ratio(Double(peakRSSBytes), Double(base.peakRSSBytes)),
            cpuOverheadMicroseconds: median(pairs.map { ($0.cpuPerRequest - $1.cpuPerRequest) * 1e6 })
        )
    }
}

/// A guard rail and whether this run stayed inside it.
struct TargetCheck: Codable, Sendable {
    var target: String
    var measured: String
    var met: Bool
}

/// Everything one `courier-bench` run measured, as written to JSON.
struct RunReport: Codable, Sendable {
    var date: String
    var machine: Machine
    var server: String
    var command: String
    var roundsPerScenario: Int
    var allocationCounting: String
    var results: [SubjectResult]
    var targets: [TargetCheck]
    var micro: [MicroResult]?
}

struct Machine: Codable, Sendable {
    var cores: Int
    var os: String
    var swift: String

    static var current: Machine {
        Machine(cores: ProcessInfo.processInfo.activeProcessorCount, os: osName(), swift: swiftVersion)
    }

    private static func osName() -> String {
        #if os(Linux)
        let release = (try? String(contentsOfFile: "/etc/os-release", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("PRETTY_NAME=") }
            .map { $0.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        return "Linux" + (release.map { " (\($0))" } ?? "")
        #else
        return ProcessInfo.processInfo.operatingSystemVersionString
        #endif
    }

    static var swiftVersion: String {
        #if compiler(>=6.4)
        "6.4+"
        #elseif compiler(>=6.3)
        "6.3"
        #elseif compiler(>=6.2)
        "6.2"
        #else
        "6.1"
        #endif
    }
}

func isoDate() -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    return formatter.string(from: Date())
}
