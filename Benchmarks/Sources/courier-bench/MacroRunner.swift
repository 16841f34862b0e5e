import Foundation

/// Runs every scenario: a warm-up pass per subject, then `rounds` measured rounds in which the
/// subjects take turns, the order reversed every other round (A B C D, D C B A, …) so that drift in
/// the machine's speed falls on all of them alike.
///
/// One-at-a-time scenarios take turns in blocks of ``interleavingBlock`` requests within a round
/// (each subject's round is the sum of its blocks): on this shared machine the speed changes within
/// a second, and a subject measured 200 ms after its baseline can see a different machine.
func runMacro(_ scenarios: [Scenario], rounds: Int, warmup: Int, log: (String) -> Void) async throws -> [SubjectResult] {
    var results: [SubjectResult] = []
    for scenario in scenarios {
        log("• \(scenario.title)")
        try await scenario.prepare?()
        for subject in scenario.subjects {
            log("  warm-up \(subject.name)")
            try await scenario.run(subject, requests: max(1, min(scenario.requests, warmup)))
        }
        var samples = Array(repeating: [Sample](), count: scenario.subjects.count)
        let indices = Array(scenario.subjects.indices)
        for round in 0..<rounds {
            // Concurrent scenarios keep whole rounds: splitting them would drain the 32 in flight at every block.
            let block = scenario.width <= 1 ? interleavingBlock : scenario.requests
            var sums = indices.map { _ in Sample(requests: 0, wallSeconds: 0, cpuSeconds: 0, allocations: 0, contextSwitches: 0, peakRSSBytes: 0) }
            for (turn, start) in stride(from: 0, to: scenario.requests, by: block).enumerated() {
                let range = start..<min(start + block, scenario.requests)
                for index in (round + turn) % 2 == 0 ? indices : indices.reversed() {
                    let subject = scenario.subjects[index]
                    sums[index].add(try await measure(requests: range.count) { try await scenario.run(subject, range: range) })
                }
            }
            for index in indices { samples[index].append(sums[index]) }
        }
        var scenarioResults = zip(scenario.subjects, samples).map { SubjectResult(scenario: scenario, subject: $0, rounds: $1) }
        for index in scenarioResults.indices {
            guard let baseline = scenarioResults[index].baseline,
                let base = scenarioResults.first(where: { $0.subject == baseline })
            else { continue }
            scenarioResults[index].compare(with: base)
        }
        results += scenarioResults
    }
    return results
}

/// The guard rails (issue 32) the macro results are read against: lines not to cross, not targets
/// to chase. Printed beside the figures, never a test: wall and CPU ratios move with the machine.
func macroGuardRails(_ results: [SubjectResult]) -> [TargetCheck] {
    func find(_ scenario: String, _ subject: String) -> SubjectResult? {
        results.first { $0.scenario == scenario && $0.subject == subject }
    }
    var checks: [TargetCheck] = []
    for (scenario, label) in [("sequential", "GET, sequential"), ("concurrent", "GET, 32 in flight"), ("post", "POST")] {
        if let ratios = find(scenario, "Courier/AHC")?.ratios {
            checks.append(TargetCheck(
                target: "Courier/AHC CPU ≤ 1.3× raw AHC (\(label))", measured: format(ratios.cpu, "×"), met: ratios.cpu <= 1.3
            ))
        }
    }
    if let ratios = find("cache-store", "Courier+HTTPCache hit from the store")?.ratios {
        checks.append(TargetCheck(
            target: "hit from the store over \(Subjects.storeKeys) keys ≤ 0.5× a raw AHC round trip",
            measured: format(ratios.wall, "×"), met: ratios.wall <= 0.5
        ))
    }
    if let ratios = find("cache-miss", "Courier+HTTPCache miss + store")?.ratios {
        checks.append(TargetCheck(
            target: "miss + store ≤ 1.5× the same call without cache", measured: format(ratios.wall, "×"), met: ratios.wall <= 1.5
        ))
    }
    return checks
}

/// Requests per turn in one-at-a-time scenarios.
let interleavingBlock = 100

func format(_ value: Double, _ unit: String) -> String { String(format: "%.3f%@", value, unit) }
