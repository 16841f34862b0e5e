import Foundation

/// The macro results as a fixed-width table for the terminal.
func consoleTable(_ results: [SubjectResult]) -> String {
    let header = ["scenario", "client", "wall ms", "×raw", "CPU µs/req", "×raw", "req/s", "allocs/req", "+raw", "ctx sw/req", "+raw", "peak RSS MB", "×raw"]
    var rows: [[String]] = []
    for result in results {
        let ratios = result.ratios
        rows.append([
            result.scenario, result.subject,
            String(format: "%.1f", result.wallSeconds * 1000), ratio(ratios?.wall),
            String(format: "%.1f", result.cpuMicrosecondsPerRequest), ratio(ratios?.cpu),
            String(format: "%.0f", result.requestsPerSecond),
            String(format: "%.1f", result.allocationsPerRequest), extra(ratios?.extraAllocations, "%+.1f"),
            String(format: "%.2f", result.contextSwitchesPerRequest), extra(ratios?.extraContextSwitches, "%+.2f"),
            String(format: "%.1f", Double(result.peakRSSBytes) / 1_048_576), ratio(ratios?.peakRSS),
        ])
    }
    let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
    func line(_ cells: [String]) -> String {
        cells.enumerated().map { column, cell in
            let pad = String(repeating: " ", count: widths[column] - cell.count)
            return column < 2 ? cell + pad : pad + cell
        }.joined(separator: "  ")
    }
    let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
    return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
}

/// The macro results as a Markdown table (the README's Performance section uses it).
func markdownTable(_ results: [SubjectResult]) -> String {
    var lines = [
        "| scenario | client | wall (median) | ×raw | CPU/req | ×raw | req/s | allocs/req | +raw | ctx sw/req | +raw | peak RSS | ×raw |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for result in results {
        let ratios = result.ratios
        lines.append(
            "| \(result.scenarioTitle) | \(result.subject) | \(String(format: "%.1f ms", result.wallSeconds * 1000)) | \(ratio(ratios?.wall)) "
                + "| \(String(format: "%.1f µs", result.cpuMicrosecondsPerRequest)) | \(ratio(ratios?.cpu)) "
                + "| \(String(format: "%.0f", result.requestsPerSecond)) | \(String(format: "%.1f", result.allocationsPerRequest)) "
                + "| \(extra(ratios?.extraAllocations, "%+.1f")) | \(String(format: "%.2f", result.contextSwitchesPerRequest)) "
                + "| \(extra(ratios?.extraContextSwitches, "%+.2f")) | \(String(format: "%.1f MB", Double(result.peakRSSBytes) / 1_048_576)) "
                + "| \(ratio(ratios?.peakRSS)) |"
        )
    }
    return lines.joined(separator: "\n")
}

func targetLines(_ checks: [TargetCheck]) -> String {
    checks.map { "\($0.met ? "✓" : "✗") \($0.target): \($0.measured)" }.joined(separator: "\n")
}

/// A count above the baseline's, or a dash for a baseline itself.
private func extra(_ value: Double?, _ format: String) -> String {
    value.map { String(format: format, $0) } ?? "–"
}

private func ratio(_ value: Double?) -> String {
    guard let value else { return "1.00" }
    return String(format: value < 0.1 ? "%.3f" : "%.2f", value)
}

/// The cache rows as time per call and as a share of a plain loopback call (raw AHC) measured in
/// the same scenario, round by round; the miss row also against the same call without cache.
func cacheSummary(_ results: [SubjectResult]) -> [String] {
    var lines: [String] = []
    for scenario in ["cache", "cache-store", "cache-miss"] {
        let rows = results.filter { $0.scenario == scenario }
        guard let raw = rows.first(where: { $0.subject == "raw AHC" }) else { continue }
        for row in rows where row.subject != "raw AHC" {
            let perCall = row.wallSeconds / Double(row.requests) * 1e6
            var line = String(
                format: "%@ · %@: %.1f µs per call, %.3f× a raw AHC loopback call (%.1f µs)", scenario as NSString,
                row.subject as NSString, perCall, perRoundRatio(row, raw), raw.wallSeconds / Double(raw.requests) * 1e6)
            if let baseline = row.baseline, baseline != "raw AHC", let base = rows.first(where: { $0.subject == baseline }) {
                line += String(format: ", %.2f× %@", perRoundRatio(row, base), baseline as NSString)
            }
            lines.append(line)
        }
    }
    return lines
}

/// The median of the per-round wall-time ratios of `row` to `base`.
private func perRoundRatio(_ row: SubjectResult, _ base: SubjectResult) -> Double {
    median(zip(row.rounds, base.rounds).map { $1.wallSeconds == 0 ? 0 : $0.wallSeconds / $1.wallSeconds })
}
