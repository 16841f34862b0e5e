#if canImport(Network)
import Foundation
import Network

/// Owns an `NWPathMonitor` and the last status it reported.
// @unchecked: `monitor` is only configured in init and then used through its own thread-safe
// start/cancel API; the status it reports lives in a `Locked` value.
final class PathMonitorBox: @unchecked Sendable {
    private let monitor = NWPathMonitor()
    private let offline = Locked(false)

    /// Starts a monitor.
    static func start() -> PathMonitorBox? { PathMonitorBox() }

    private init() {
        let offline = self.offline
        monitor.pathUpdateHandler = { path in
            offline.withLock { $0 = path.status == .unsatisfied }
        }
        monitor.start(queue: DispatchQueue(label: "courier.connectivity"))
    }

    /// Whether the monitor has positively reported an unsatisfied path.
    var isKnownOffline: Bool { offline.current }

    deinit { monitor.cancel() }
}
#else
/// Without Network.framework there is no path monitor to start.
final class PathMonitorBox: Sendable {
    /// Nothing to start here.
    static func start() -> PathMonitorBox? { nil }

    /// Never offline as far as this platform can tell.
    var isKnownOffline: Bool { false }
}
#endif
