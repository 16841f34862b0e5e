import Foundation
import OpenAPIRuntime
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session delegate of ``URLSessionTransport``: collects each task's body within its limit (or
/// streams a transfer's body as it arrives), refuses redirects, and finishes each task's ``Reception``
/// exactly once.
// @unchecked: the only state is `receptions`, behind a lock; each Reception locks its own state.
final class URLSessionTransportDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let receptions = Locked<[Int: Reception]>([:])
    /// The transport's server trust, applied to server-trust challenges; nil for the system's.
    private let trust: URLSessionTrust?

    init(trust: URLSessionTrust? = nil) {
        self.trust = trust
    }

    func register(_ reception: Reception, for task: URLSessionTask) {
        receptions.withLock { $0[task.taskIdentifier] = reception }
    }

    private func reception(for task: URLSessionTask) -> Reception? {
        receptions.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let reception = reception(for: dataTask)
        let accepted = reception?.receive(response) ?? true
        completionHandler(accepted ? .allow : .cancel)
        if !accepted { reception?.stopTask() }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let reception = reception(for: dataTask), !reception.append(data) else { return }
        reception.stopTask()
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        // The client follows redirects itself, hop by hop, so credentials never reach another origin.
        completionHandler(nil)
    }

    #if canImport(Security)
    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        guard let trust, challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
              let serverTrust = challenge.protectionSpace.serverTrust
        else { return completionHandler(.performDefaultHandling, nil) }
        if let failure = trust.evaluate(serverTrust, host: challenge.protectionSpace.host) {
            // The task's failure says why: its own error would only say "cancelled".
            self.reception(for: task)?.fail(failure)
            return completionHandler(.cancelAuthenticationChallenge, nil)
        }
        completionHandler(.useCredential, URLCredential(trust: serverTrust))
    }
    #endif

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let reception = receptions.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        reception?.complete(error: error, response: task.response)
    }
}
