#if canImport(Network) && !os(watchOS)
import Courier
import Foundation
import Network

/// Calls back when the system's network path becomes usable again (Apple platforms; not watchOS,
/// where an ordinary app's path monitor stays unsatisfied, TN3135).
// @unchecked: `monitor` is configured in init only, then used through its own thread-safe API.
final class ConnectivityWatch: @unchecked Sendable {
    private let monitor = NWPathMonitor()

    init(onReturn: @escaping @Sendable () -> Void) {
        let wasOffline = Locked(false)
        monitor.pathUpdateHandler = { path in
            let satisfied = path.status == .satisfied
            let returned = wasOffline.withLock { offline in
                defer { offline = !satisfied }
                return offline && satisfied
            }
            if returned { onReturn() }
        }
        monitor.start(queue: DispatchQueue(label: "courier.outbox.connectivity"))
    }

    deinit { monitor.cancel() }
}
#else
/// No path monitor here: items waiting after a failed connection are sent when their backoff ends.
final class ConnectivityWatch: Sendable {
    init(onReturn: @escaping @Sendable () -> Void) {}
}
#endif
