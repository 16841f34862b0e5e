// Logs, a timing file, metrics and traces: silent until you add the middleware that records them.
//
// Runs against an in-process MockServer: `swift run Observability`.

// snippet.hide
import CourierTesting

let server = try await MockServer.start()
server.route("GET", "/users/*", respond: .json("[]"))
let api = server.baseURL
let timingFile = FileManager.default.temporaryDirectory.appending(path: "courier-timing-\(UUID()).tsv")
// snippet.show
import Courier
import Foundation
import Logging
import Metrics
import Tracing

struct Friends: Endpoint {
    typealias Response = [String]
    var userID: Int
    var path: EndpointPath { "/users/\(userID)/friends" }   // url.template: /users/{}/friends
}
let credentials = CredentialStore()

// snippet.logging
// Request and response lines at debug level, with secrets redacted; bodies only when asked.
var logger = Logger(label: "app.network")
logger.logLevel = .debug
let logging = LoggingMiddleware(logger: logger, logsBodies: false)

// One tab-separated line per call: time, method, endpoint, status, milliseconds, bytes, source.
let timing = try TimingLogMiddleware(fileURL: timingFile)
// snippet.end

// snippet.telemetry
// Metrics and spans by OpenTelemetry's HTTP client conventions, to the process-wide backends
// (MetricsSystem.bootstrap, InstrumentationSystem.bootstrap). The first middleware sees the
// logical call, the last one each network attempt (retries, replays, revalidations).
let client = Client(baseURL: api, middlewares: [
    timing,
    TelemetryMiddleware(),
    logging,
    RetryMiddleware(),
    CredentialsMiddleware(provider: credentials),
    AttemptTelemetryMiddleware(),
])
// snippet.end

// snippet.ownBackends
// Or backends of this client's own, instead of the process-wide ones.
func makeClient(metrics: any MetricsFactory, tracer: any Tracer) -> Client {
    Client(baseURL: api, middlewares: [TelemetryMiddleware(), AttemptTelemetryMiddleware()]) { configuration in
        configuration.telemetry = Telemetry(metrics: metrics, tracer: tracer)
    }
}
// snippet.end

// snippet.hide
_ = try await client.send(Friends(userID: 42))
let line = try String(contentsOf: timingFile, encoding: .utf8)
precondition(line.contains("Friends"), line)
_ = makeClient(metrics: NOOPMetricsHandler.instance, tracer: NoOpTracer())
try await server.shutdown()
try? FileManager.default.removeItem(at: timingFile)
