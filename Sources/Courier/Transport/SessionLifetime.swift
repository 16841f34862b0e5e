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
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit { session.finishTasksAndInvalidate() }
}
