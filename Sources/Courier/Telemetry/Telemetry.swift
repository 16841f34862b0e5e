import CoreMetrics
import HTTPTypes
import Tracing

/// Where Courier sends metrics and spans: swift-metrics and swift-distributed-tracing, to the
/// backends the process bootstrapped unless others are given.
///
/// Nothing is recorded while both are the no-op defaults, so a client with telemetry turned on
/// and no backend costs no more than the middleware hops. Set it once for a client with
/// ``Client/Configuration/telemetry``; ``TelemetryMiddleware``, ``AttemptTelemetryMiddleware``,
/// the retry, token refresh and cache middlewares all read it from the call.
public struct Telemetry: Sendable {
    // Given once, to `init`; the middlewares read them.
    /// The metrics backend; nil means `MetricsSystem.factory`.
    package var metrics: (any MetricsFactory)?
    /// The tracer; nil means `InstrumentationSystem.tracer`.
    package var tracer: (any Tracer)?

    /// Telemetry to the given backends, or to the process-wide ones.
    public init(metrics: (any MetricsFactory)? = nil, tracer: (any Tracer)? = nil) {
        self.metrics = metrics
        self.tracer = tracer
    }

    var metricsFactory: any MetricsFactory { metrics ?? MetricsSystem.factory }
    var activeTracer: any Tracer { tracer ?? InstrumentationSystem.tracer }

    /// Whether metrics go anywhere.
    var recordsMetrics: Bool { !(metricsFactory is NOOPMetricsHandler) }
    /// Whether spans go anywhere.
    var traces: Bool { !(activeTracer is NoOpTracer) }

    /// Adds `amount` to a counter, when metrics go anywhere.
    package func count(_ label: String, _ dimensions: [(String, String)], by amount: Int = 1) {
        guard recordsMetrics else { return }
        Counter(label: label, dimensions: dimensions, factory: metricsFactory).increment(by: amount)
    }

    /// A CLIENT span named and described after the call, a child of the task's trace context.
    func startClientSpan(_ labels: CallLabels) -> any Span {
        let span = activeTracer.startSpan(labels.spanName, context: ServiceContext.current ?? .topLevel, ofKind: .client)
        labels.describe(span)
        return span
    }

    /// `request` carrying `span`'s trace context in its header fields, so the server continues the trace.
    func injecting(_ span: any Span, into request: HTTPRequest) -> HTTPRequest {
        var traced = request
        activeTracer.inject(span.context, into: &traced.headerFields, using: HTTPFieldsInjector())
        return traced
    }
}

extension Telemetry {
    /// The backends a telemetry middleware uses: its own, else the call's, else the process-wide ones.
    static func chosen(_ own: Telemetry?, in context: RequestContext?) -> Telemetry {
        own ?? context?.facts.telemetry ?? Telemetry()
    }
}
