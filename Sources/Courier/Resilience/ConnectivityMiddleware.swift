import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Fails fast with ``CourierError/Kind/noConnection`` when the system says the device is offline.
///
/// Uses the system path monitor on macOS, iOS, tvOS and visionOS. It only fails a request when the
/// monitor has positively reported an unsatisfied path, and never for loopback hosts, so the check
/// can't block a request that would have worked. On watchOS (where an ordinary app's monitor never
/// reports a usable path) and on Linux (which has none) it passes every request on: there the
/// transports map refused connections and DNS failures to `noConnection` instead.
public struct ConnectivityMiddleware: ClientMiddleware, CourierMiddleware {
    /// Whether the system has positively reported that no path is usable.
    private let isKnownOffline: @Sendable () -> Bool

    /// Creates the middleware and starts monitoring where the platform can answer.
    public init() {
        let monitor = ConnectivityCheck.isAvailable(on: .current) ? PathMonitorBox.start() : nil
        self.init(isKnownOffline: { monitor?.isKnownOffline ?? false })
    }

    /// Creates the middleware over another source of the offline status (tests).
    package init(isKnownOffline: @escaping @Sendable () -> Bool) {
        self.isKnownOffline = isKnownOffline
    }

    /// Throws `noConnection` at once when offline; otherwise passes the request on.
    package func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        context: RequestContext,
        next: @escaping ChainNext
    ) async throws -> Answer {
        if !Self.isLoopback(baseURL.host ?? ""), isKnownOffline() {
            throw CourierError(.noConnection, detail: "The system reports no usable network path")
        }
        return try await next(request, body, baseURL, context)
    }

    /// Whether `host` names this machine: the monitor's status says nothing about loopback.
    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
    }
}
