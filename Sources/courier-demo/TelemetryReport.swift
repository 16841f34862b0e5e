import Courier
import Foundation
import InMemoryTracing
import Prometheus
import Tracing

/// The tour's telemetry: metrics into a Prometheus registry, spans kept in memory, both printed at the end.
struct TelemetryReport {
    let registry = PrometheusCollectorRegistry()
    let tracer = InMemoryTracer()

    /// Where the tour's client sends metrics and spans.
    var telemetry: Telemetry {
        var factory = PrometheusMetricsFactory(registry: registry)
        // Prometheus names allow no dots: `http.client.request.duration` becomes `http_client_request_duration`.
        factory.nameAndLabelSanitizer = { name, labels in
            (Self.prometheusName(name), labels.map { (Self.prometheusName($0.0), $0.1) })
        }
        return Telemetry(metrics: factory, tracer: tracer)
    }

    private static func prometheusName(_ name: String) -> String {
        String(name.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" })
    }

    /// The registry in Prometheus text format: the call counts per endpoint and Courier's own
    /// counters (the tour's buckets, sums and gauges are left out to keep it short).
    func printMetrics() {
        let lines = registry.emitToString().split(separator: "\n").filter { line in
            line.hasPrefix("courier_") || line.hasPrefix("http_client_request_duration_count")
                || line.hasPrefix("# TYPE courier_") || line.hasPrefix("# TYPE http_client_request_duration")
        }
        for line in lines { Narrator.say(String(line)) }
    }

    /// The spans of the last call to `template`, as a tree.
    func printSpans(of template: String) {
        let spans = tracer.finishedSpans
        let children = Dictionary(grouping: spans.filter { $0.parentSpanID != nil }) { $0.parentSpanID ?? "" }
        let calls = spans.filter { $0.parentSpanID == nil && $0.attributes["url.template"]?.toSpanAttribute() == .string(template) }
        guard let root = calls.last else { return }
        Narrator.say(Self.describe(root))
        let attempts = (children[root.spanID] ?? []).sorted { Self.resendCount($0) < Self.resendCount($1) }
        for (index, attempt) in attempts.enumerated() {
            Narrator.say((index == attempts.count - 1 ? "└─ " : "├─ ") + Self.describe(attempt))
        }
    }

    private static func describe(_ span: FinishedInMemorySpan) -> String {
        let milliseconds = Double(span.endInstant.nanosecondsSinceEpoch - span.startInstant.nanosecondsSinceEpoch) / 1e6
        var parts = ["\(span.operationName) [\(span.kind)]", String(format: "%.1f ms", milliseconds)]
        for key in ["http.request.resend_count", "http.response.status_code", "error.type", "courier.cache.outcome"] {
            switch span.attributes[key]?.toSpanAttribute() {
            case .int64(let value): parts.append("\(key)=\(value)")
            case .string(let value): parts.append("\(key)=\(value)")
            default: break
            }
        }
        return parts.joined(separator: "  ")
    }

    private static func resendCount(_ span: FinishedInMemorySpan) -> Int64 {
        guard case .int64(let count) = span.attributes["http.request.resend_count"]?.toSpanAttribute() else { return 0 }
        return count
    }
}
