import Courier
import NIOConcurrencyHelpers
import NIOCore

/// The shared, lock-protected state of a ``MockServer``: routes, records, connections, listener.
///
/// Every member is reached through one `NIOLockedValueBox`, so the class is `Sendable`
/// without `@unchecked`; no lock is held across an `await` or while a route handler runs.
final class MockServerCore: Sendable {
    /// Where the listening socket is in its lifecycle.
    enum Listener {
        case up(any Channel)
        case binding
        case down
        case shutDown
    }

    struct State {
        var listener: Listener = .binding
        var routes: [MockRoute] = []
        var records: [RecordedRequest] = []
        var nextConnectionID = 1
        var openChannels: [Int: any Channel] = [:]
        /// Open HTTP/1.1 connections and HTTP/2 streams: one per ``MockConnectionHandler``.
        var openStreams = 0
        /// The port, held while the server is down (see ``PortHold``).
        var portHold: PortHold?

        var isAccepting: Bool {
            switch listener {
            case .up, .binding: true
            case .down, .shutDown: false
            }
        }
    }

    /// The largest request body accepted; larger ones get a 413.
    let maxRequestBodySize: Int
    /// Internal, for the listener's lifecycle in `MockServerCore+Listener`.
    let state = NIOLockedValueBox(State())

    init(maxRequestBodySize: Int) {
        self.maxRequestBodySize = maxRequestBodySize
    }

    // MARK: Routes and records

    func add(_ route: MockRoute) {
        state.withLockedValue { $0.routes.append(route) }
    }

    func record(_ request: RecordedRequest) {
        state.withLockedValue { $0.records.append(request) }
    }

    var records: [RecordedRequest] {
        state.withLockedValue { $0.records }
    }

    func resetRecords() {
        state.withLockedValue { $0.records.removeAll() }
    }

    /// Whether the route that will answer this request keeps its body (see ``MockServer/sink(_:_:respond:)``).
    func keepsBody(method: String, path: String) -> Bool {
        state.withLockedValue { state in
            state.routes.last { $0.matches(method: method, path: path) }?.keepsBody ?? true
        }
    }

    /// Runs the most recently registered matching route, or answers 404.
    func response(for request: RecordedRequest) async -> MockResponse {
        let route = state.withLockedValue { state in
            state.routes.last { $0.matches(method: request.method, path: request.path) }
        }
        guard let route else {
            return .message("no route for \(request.method) \(request.path)", status: 404)
        }
        return await route.handler(request)
    }

    // MARK: Connections

    /// Registers an accepted connection and returns its id, or nil when the server is not accepting.
    func register(_ channel: any Channel) -> Int? {
        state.withLockedValue { state in
            guard state.isAccepting else { return nil }
            let id = state.nextConnectionID
            state.nextConnectionID += 1
            state.openChannels[id] = channel
            return id
        }
    }

    func unregister(_ id: Int) {
        _ = state.withLockedValue { $0.openChannels.removeValue(forKey: id) }
    }

    var connectionsOpened: Int {
        state.withLockedValue { $0.nextConnectionID - 1 }
    }

    var connectionsOpen: Int {
        state.withLockedValue { $0.openChannels.count }
    }

    func streamOpened() {
        state.withLockedValue { $0.openStreams += 1 }
    }

    func streamClosed() {
        state.withLockedValue { $0.openStreams -= 1 }
    }

    var streamsOpen: Int {
        state.withLockedValue { $0.openStreams }
    }

    /// Runs `body` on `loop` unless the server is shut down, so no task reaches a dead event loop.
    ///
    /// The check and the enqueue happen under the lock that ``beginShutdown()`` takes, so any
    /// task enqueued here is queued before the event loop group starts shutting down.
    /// Runs a route's handler or a test's gate on the servers' own thread: a test process keeps
    /// Swift's shared pool busy (two threads on a 2-core machine, held for seconds by a burst of
    /// tests), and a server that waited for it would miss the timeouts its tests measure.
    static func serve(_ work: @escaping @Sendable () async -> Void) {
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) {
            Task(executorPreference: serverThread) { await work() }
        } else {
            Task { await work() }
        }
    }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
    private static let serverThread = ThreadExecutor(name: "CourierTesting server")

    func execute(on loop: any EventLoop, _ body: @escaping @Sendable () -> Void) {
        state.withLockedValue { state in
            if case .shutDown = state.listener { return }
            loop.execute(body)
        }
    }
}
