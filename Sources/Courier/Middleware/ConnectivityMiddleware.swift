#if canImport(Network)
import Foundation
import HTTPTypes
import Network
import OpenAPIRuntime

/// Fails fast with ``CourierError/Kind/noConnection`` when the system says the device is offline.
///
/// Uses the system path monitor. It only fails a request when the monitor has positively reported
/// an unsatisfied path, and never for loopback hosts, so the check can't block a request that would
/// have worked. On Linux there is no monitor: transports map refused and DNS failures instead.
public struct ConnectivityMiddleware: ClientMiddleware {
    private let monitor: PathMonitorBox

    /// Creates the middleware and starts monitoring.
    public init() {
        monitor = PathMonitorBox()
    }

    /// Throws `noConnection` at once when offline; otherwise passes the request on.
    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let host = baseURL.host ?? ""
        let isLoopback = host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
        if !isLoopback, monitor.isKnownOffline {
            throw CourierError(.noConnection, detail: "The system reports no usable network path")
        }
        return try await next(request, body, baseURL)
    }
}

/// Owns an `NWPathMonitor` and the last status it reported.
// @unchecked: `monitor` is only configured in init and then used through its own thread-safe
// start/cancel API; the status it reports lives in a `Locked` value.
final class PathMonitorBox: @unchecked Sendable {
    private let monitor = NWPathMonitor()
    private let offline = Locked(false)

    init() {
        let offline = self.offline
        monitor.pathUpdateHandler = { path in
            offline.withLock { $0 = path.status == .unsatisfied }
        }
        monitor.start(queue: DispatchQueue(label: "courier.connectivity"))
    }

    var isKnownOffline: Bool { offline.current }

    deinit { monitor.cancel() }
}
#endif
