import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionTransportDelegate {
    #if canImport(Darwin)
    /// Gives URLSession a new stream when it must send a streamed body again; nil for a body that
    /// can be read only once.
    // The async form of the Objective-C requirement: its completion handler's Sendable annotation
    // then can't make this a near miss that URLSession never calls.
    func urlSession(_ session: URLSession, needNewBodyStreamForTask task: URLSessionTask) async -> InputStream? {
        UploadBody.attached(to: task)?.newStream()
    }
    #else
    /// Gives URLSession a new stream when it must send a streamed body again; nil for a body that
    /// can be read only once.
    func urlSession(_ session: URLSession, task: URLSessionTask, needNewBodyStream completionHandler: @escaping (InputStream?) -> Void) {
        completionHandler(UploadBody.attached(to: task)?.newStream())
    }
    #endif
}
