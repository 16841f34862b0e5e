import CoreMetrics
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Tracing

/// The metrics and span attributes of one call, from its start to its end.
struct CallRecorder {
    let telemetry: Telemetry
    let labels: CallLabels
    let metrics: Bool
    let context: RequestContext?
    let started = ContinuousClock.now

    private var activeRequests: Meter? {
        guard metrics else { return nil }
        let dimensions = Array(labels.dimensions.prefix(4))
        return Meter(label: MetricName.activeRequests, dimensions: dimensions, factory: telemetry.metricsFactory)
    }

    func begin(requestBody: HTTPBody?) {
        activeRequests?.increment()
        if metrics, case .known(let length) = requestBody?.length {
            Recorder(label: MetricName.requestBodySize, dimensions: labels.dimensions, factory: telemetry.metricsFactory).record(length)
        }
    }

    func end() {
        activeRequests?.decrement()
    }

    /// Runs the call and records its status or error, its duration and its cache outcome.
    func observe(span: (any Span)?, _ call: () async throws -> Answer) async throws -> Answer {
        do {
            let answer = try await call()
            var length: Int64?
            if case .known(let known) = answer.body?.length { length = known }
            record(status: answer.response.status, source: answer.source, error: nil, responseBodySize: length, span: span)
            return answer
        } catch {
            record(status: nil, source: nil, error: error, responseBodySize: nil, span: span)
            throw error
        }
    }

    private func record(
        status: HTTPResponse.Status?, source: ResponseSource?, error: (any Error)?, responseBodySize: Int64?, span: (any Span)?
    ) {
        let errorType = CallLabels.errorType(status: status, error: error)
        let outcome = cacheOutcome(status: status, source: source)
        if let span {
            if let status { span.attributes["http.response.status_code"] = status.code }
            if let errorType {
                span.attributes["error.type"] = errorType
                span.setStatus(SpanStatus(code: .error))
            }
            if let error { span.recordError(error) }
            if let outcome { span.attributes["courier.cache.outcome"] = outcome }
        }
        guard metrics else { return }
        var dimensions = labels.dimensions
        if let status { dimensions.append(("http.response.status_code", String(status.code))) }
        if let errorType { dimensions.append(("error.type", errorType)) }
        let factory = telemetry.metricsFactory
        let elapsed = started.duration(to: .now)
        let nanoseconds = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
        CoreMetrics.Timer(label: MetricName.requestDuration, dimensions: dimensions, factory: factory).recordNanoseconds(nanoseconds)
        if let responseBodySize {
            Recorder(label: MetricName.responseBodySize, dimensions: labels.dimensions, factory: factory).record(responseBodySize)
        }
        if let outcome {
            telemetry.count(MetricName.cacheRequests, [("courier.operation", labels.operation), ("courier.cache.outcome", outcome)])
        }
    }

    /// `hit`, `revalidated`, `stale` or `miss` for a call that could use the cache; nil otherwise.
    private func cacheOutcome(status: HTTPResponse.Status?, source: ResponseSource?) -> String? {
        guard let context, context.cachePolicy.mode != .withoutCache else { return nil }
        switch source ?? .network {
        case .cache where status == .gatewayTimeout: return "miss"   // the cache's own 504: nothing stored
        case .cache: return "hit"
        case .revalidated: return "revalidated"
        case .stale: return "stale"
        default: return "miss"
        }
    }
}
