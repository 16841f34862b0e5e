import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransportDelegate {
    /// Gives URLSession a new stream when it must send a streamed body again; nil for a body that
    /// can be read only once.
    func urlSession(_ session: URLSession, task: URLSessionTask, needNewBodyStream completionHandler: @escaping (InputStream?) -> Void) {
        completionHandler(UploadBody.attached(to: task)?.newStream())
    }
}
