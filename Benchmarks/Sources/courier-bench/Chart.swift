import Foundation

/// The chart of a whole run, titled with its date, machine and server.
func svgChart(of report: RunReport) -> String {
    svgChart(report.results, title: "Courier vs its raw transport: median wall time ratio (lower is better)", subtitle: runSummary(report))
}

/// Date, machine and server of a run, in one line.
func runSummary(_ report: RunReport) -> String {
    "\(report.date) · \(report.machine.cores) cores · Swift \(report.machine.swift) · \(report.machine.os) · \(report.server)"
}

/// A hand-written SVG bar chart: each Courier configuration's median wall time as a ratio to its raw
/// transport, per scenario, with the 1.0 line and the 1.05 target marked.
func svgChart(_ results: [SubjectResult], title: String, subtitle: String) -> String {
    let bars = results.compactMap { result in result.ratios.map { (result, $0.wall) } }
    var previousScenario = ""
    let labels = bars.map { result, _ in
        defer { previousScenario = result.scenario }
        return (result.scenario == previousScenario ? "" : result.scenarioTitle + " — ") + result.subject
    }
    // Wide enough for the longest label at about 6.6 px a character (12 px Helvetica).
    let labelWidth = max(330, Double(labels.map(\.count).max() ?? 0) * 6.6 + 16)
    let plotWidth = 380.0
    let rowHeight = 24.0
    let top = 64.0
    let width = labelWidth + plotWidth + 90
    let height = top + Double(bars.count) * rowHeight + 40
    let scaleMax = max(1.25, (bars.map(\.1).max() ?? 1) * 1.05)
    func x(_ ratio: Double) -> Double { labelWidth + ratio / scaleMax * plotWidth }

    var svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" viewBox="0 0 \(Int(width)) \(Int(height))" font-family="Helvetica, Arial, sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="#ffffff"/>
        <text x="12" y="22" font-size="15" font-weight="bold">\(escape(title))</text>
        <text x="12" y="42" fill="#555">\(escape(subtitle))</text>

        """
    for (index, ((result, ratio), label)) in zip(bars, labels).enumerated() {
        let y = top + Double(index) * rowHeight
        // Grey for the control (raw AHC against itself: the bench's own noise), green for the cache, orange for
        // URLSession, blue for AsyncHTTPClient; the partial stacks of `--breakdown` in a lighter shade.
        let isPart = result.subject.contains("alone") || result.subject.contains("body read")
        let color = result.subject.contains("(control)") ? "#999999"
            : result.subject.contains("Cache") ? "#2e8b57"
            : result.subject.contains("URLSession") ? (isPart ? "#f2b68c" : "#e07b39") : (isPart ? "#a3bde3" : "#3b6fb6")
        let barEnd = x(ratio)
        svg += """
            <text x="\(Int(labelWidth - 8))" y="\(fmt(y + 16))" text-anchor="end">\(escape(label))</text>
            <rect x="\(Int(labelWidth))" y="\(fmt(y + 4))" width="\(fmt(max(1, barEnd - labelWidth)))" height="\(fmt(rowHeight - 8))" fill="\(color)"/>
            <text x="\(fmt(barEnd + 6))" y="\(fmt(y + 16))">\(String(format: ratio < 0.1 ? "%.3f×" : "%.2f×", ratio))</text>

            """
    }
    let bottom = top + Double(bars.count) * rowHeight
    svg += """
        <line x1="\(fmt(x(1)))" y1="\(fmt(top - 4))" x2="\(fmt(x(1)))" y2="\(fmt(bottom))" stroke="#222" stroke-width="1"/>
        <line x1="\(fmt(x(1.05)))" y1="\(fmt(top - 4))" x2="\(fmt(x(1.05)))" y2="\(fmt(bottom))" stroke="#c00" stroke-width="1" stroke-dasharray="4 3"/>
        <text x="\(fmt(x(1)))" y="\(fmt(bottom + 16))" text-anchor="middle">1.0 = raw transport</text>
        <text x="\(fmt(x(1.05) + 4))" y="\(fmt(bottom + 30))" fill="#c00">target 1.05</text>
        </svg>

        """
    return svg
}

private func fmt(_ value: Double) -> String { String(format: "%.1f", value) }

private func escape(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
}
