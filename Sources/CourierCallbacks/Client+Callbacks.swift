import Courier
import Dispatch
import Foundation

extension Client {
    /// The queue completion handlers run on by default: main on Apple platforms, a global queue elsewhere
    /// (a Linux process often runs no main dispatch loop).
    public static var defaultCompletionQueue: DispatchQueue {
        #if canImport(Darwin)
        .main
        #else
        .global()
        #endif
    }

    /// Sends an endpoint and calls `completion` once on `queue` with the value or the error.
    /// - Returns: A handle that cancels the call.
    @discardableResult
    public func send<E: Endpoint>(
        _ endpoint: E,
        cachePolicy: CachePolicy? = nil,
        queue: DispatchQueue = Client.defaultCompletionQueue,
        completion: @escaping @Sendable (Result<E.Response, CourierError>) -> Void
    ) -> CallHandle {
        deliver(endpoint.operationName, on: queue, to: completion) { _ throws(CourierError) in
            try await self.send(endpoint, cachePolicy: cachePolicy)
        }
    }

    /// Downloads into a file (see `download(_:to:resumingFrom:cachePolicy:progress:)`) and calls `completion`
    /// once on `queue`; `progress` runs on `queue` too.
    /// - Returns: A handle that cancels the download.
    @discardableResult
    public func download<E: Endpoint>(
        _ endpoint: E,
        to destination: URL,
        resumingFrom resume: ResumableDownload? = nil,
        cachePolicy: CachePolicy? = nil,
        queue: DispatchQueue = Client.defaultCompletionQueue,
        progress: (@Sendable (TransferProgress) -> Void)? = nil,
        completion: @escaping @Sendable (Result<URL, CourierError>) -> Void
    ) -> CallHandle {
        let report = progress.map { progress in { @Sendable (value: TransferProgress) in queue.async { progress(value) } } }
        return deliver(endpoint.operationName, on: queue, to: completion) { _ throws(CourierError) in
            try await self.download(endpoint, to: destination, resumingFrom: resume, cachePolicy: cachePolicy, progress: report).value
        }
    }

    /// Uploads (see `upload(_:progress:)`) and calls `completion` once on `queue`; `progress` runs on `queue` too.
    /// - Returns: A handle that cancels the upload.
    @discardableResult
    public func upload<E: Endpoint>(
        _ endpoint: E,
        queue: DispatchQueue = Client.defaultCompletionQueue,
        progress: @escaping @Sendable (TransferProgress) -> Void,
        completion: @escaping @Sendable (Result<E.Response, CourierError>) -> Void
    ) -> CallHandle {
        deliver(endpoint.operationName, on: queue, to: completion) { _ throws(CourierError) in
            try await self.upload(endpoint) { value in queue.async { progress(value) } }.value
        }
    }

    /// Runs `work` in a task and calls `completion` once on `queue`: with its result, or with
    /// `cancelled` (saying `cancelledDetail`) at once when the handle is cancelled first. `work`
    /// gets the handle, to stop handing over what it reads once the caller cancelled.
    func deliver<Value: Sendable>(
        _ operationName: String,
        on queue: DispatchQueue,
        to completion: @escaping @Sendable (Result<Value, CourierError>) -> Void,
        cancelledDetail: String = "The call was cancelled",
        _ work: @escaping @Sendable (CallHandle) async throws(CourierError) -> Value
    ) -> CallHandle {
        let handle = CallHandle()
        let task = Task {
            let result: Result<Value, CourierError>
            do throws(CourierError) {
                result = .success(try await work(handle))
            } catch {
                result = .failure(error)
            }
            if handle.claimDelivery() { queue.async { completion(result) } }
        }
        handle.attach(task) {
            var cancelled = CourierError(.cancelled, detail: cancelledDetail)
            cancelled.endpoint = operationName
            let error = cancelled
            queue.async { completion(.failure(error)) }
        }
        return handle
    }
}
