import HTTPTypes
import Instrumentation

/// Writes a tracer's context (W3C `traceparent` with an OpenTelemetry tracer) into request header fields.
struct HTTPFieldsInjector: Injector {
    func inject(_ value: String, forKey key: String, into fields: inout HTTPFields) {
        guard let name = HTTPField.Name(key) else { return }
        fields[name] = value
    }
}
