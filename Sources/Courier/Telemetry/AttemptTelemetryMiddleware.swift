import Foundation
import HTTPTypes
import OpenAPIRuntime
import Tracing

/// Gives each network attempt of a call its own CLIENT span, a child of the call's, with
/// `http.request.resend_count` (0 for the first attempt), and puts the trace context in the
/// request's header fields (W3C `traceparent` with an OpenTelemetry tracer) so the server
/// continues the trace.
///
/// List it last, after the retry, token refresh and cache middlewares, with ``TelemetryMiddleware`` first.
public struct AttemptTelemetryMiddleware: ClientMiddleware, CourierMiddleware {
    /// The backends; nil uses the call's ``Client/Configuration/telemetry``, else the process-wide ones.
    var telemetry: Telemetry?

    /// Creates the middleware.
    /// - Parameter telemetry: The backends; nil uses the call's ``Client/Configuration/telemetry``,
    ///   else the process-wide ones.
    public init(telemetry: Telemetry? = nil) {
        self.telemetry = telemetry
    }

    /// Sends the attempt inside a span of its own.
    package func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        context: RequestContext,
        next: @escaping ChainNext
    ) async throws -> Answer {
        let described = context.described
        let telemetry = Telemetry.chosen(telemetry, in: described)
        guard telemetry.traces else { return try await next(request, body, baseURL, context) }
        let labels = CallLabels(request: request, baseURL: baseURL, operationID: context.endpoint, context: described)
        let span = telemetry.startClientSpan(labels)
        defer { span.end() }
        span.attributes["http.request.resend_count"] = ServiceContext.current?.attemptCounter?.next() ?? 0
        let traced = telemetry.injecting(span, into: request)
        do {
            let answer = try await ServiceContext.withValue(span.context) { try await next(traced, body, baseURL, context) }
            span.attributes["http.response.status_code"] = answer.response.status.code
            if let errorType = CallLabels.errorType(status: answer.response.status, error: nil) {
                span.attributes["error.type"] = errorType
                span.setStatus(SpanStatus(code: .error))
            }
            return answer
        } catch {
            span.attributes["error.type"] = CallLabels.errorType(status: nil, error: error)
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
            throw error
        }
    }
}
