import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Owns a transport's session: when the last copy of the transport is gone, the session is
/// invalidated, which releases its delegate.
final class SessionLifetime: Sendable {
    let session: URLSession
    let delegate: URLSessionTransportDelegate

    init(configuration: URLSessionConfiguration, trust: URLSessionTrust? = nil) {
        delegate = URLSessionTransportDelegate(trust: trust)
        #if canImport(FoundationNetworking)
        // FoundationNetworking looks a task up in a URLCache on a global queue, where a cancel then
        // lands unordered against the task's end (see `TaskStop`); and it stores nothing there.
        let configuration = configuration.copy() as? URLSessionConfiguration ?? configuration
        configuration.urlCache = nil
        #endif
        // Its delegate queue is serial (nil asks for one): `TaskStop` relies on it.
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit { session.finishTasksAndInvalidate() }
}
