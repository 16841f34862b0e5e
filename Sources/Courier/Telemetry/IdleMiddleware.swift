/// A middleware that has nothing to do for some calls: the client skips it for them, so it costs
/// nothing then (not even the async frame of a pass-through hop).
package protocol IdleMiddleware {
    /// Whether the middleware would only pass the call on.
    func isIdle(in context: RequestContext) -> Bool
}

extension TelemetryMiddleware: IdleMiddleware {
    /// Idle when neither metrics nor spans go anywhere.
    package func isIdle(in context: RequestContext) -> Bool {
        let telemetry = Telemetry.chosen(telemetry, in: context)
        return !telemetry.recordsMetrics && !telemetry.traces
    }
}

extension AttemptTelemetryMiddleware: IdleMiddleware {
    /// Idle when spans go nowhere.
    package func isIdle(in context: RequestContext) -> Bool {
        !Telemetry.chosen(telemetry, in: context).traces
    }
}
