import Foundation

/// A transfer in progress: its progress as an `AsyncSequence`, and its result.
///
/// ```swift
/// let transfer = client.downloadTask(Firmware(version: "2.1"), to: file)
/// for await progress in transfer.progress { bar.value = progress.fractionCompleted ?? 0 }
/// let firmware = try await transfer.value
/// ```
///
/// ``progress`` ends when the transfer does; it keeps only the newest value for a slow reader, so an
/// unread sequence holds nothing. Cancelling the task that awaits ``response`` does not stop the
/// transfer: call ``cancel()``.
public struct Transfer<Value: Sendable>: Sendable {
    /// The progress, throttled to 20 updates a second, never backwards, the last one at the end.
    public let progress: AsyncStream<TransferProgress>
    private let task: Task<Result<Response<Value>, CourierError>, Never>

    /// Starts `work`, giving it the function that reports progress.
    init(_ work: @escaping @Sendable (_ progress: @escaping @Sendable (TransferProgress) -> Void) async throws(CourierError) -> Response<Value>) {
        let (progress, continuation) = AsyncStream.makeStream(of: TransferProgress.self, bufferingPolicy: .bufferingNewest(1))
        self.progress = progress
        task = Task {
            defer { continuation.finish() }
            do throws(CourierError) {
                return .success(try await work { continuation.yield($0) })
            } catch {
                return .failure(error)
            }
        }
    }

    /// The response once the transfer is complete.
    /// - Throws: ``CourierError``, ``CourierError/Kind/cancelled`` after ``cancel()``.
    public var response: Response<Value> {
        get async throws(CourierError) { try await task.value.get() }
    }

    /// The value once the transfer is complete (for a download, the file's URL).
    public var value: Value {
        get async throws(CourierError) { try await response.value }
    }

    /// Stops the transfer: its connection is closed and ``response`` fails with ``CourierError/Kind/cancelled``.
    public func cancel() {
        task.cancel()
    }
}

extension Client {
    /// Starts a download (see ``download(_:to:resumingFrom:cachePolicy:progress:)``) whose progress is an `AsyncSequence`.
    public func downloadTask<E: Endpoint>(
        _ endpoint: E, to destination: URL, resumingFrom resume: ResumableDownload? = nil, cachePolicy: CachePolicy? = nil
    ) -> Transfer<URL> {
        Transfer { progress throws(CourierError) in
            try await self.download(endpoint, to: destination, resumingFrom: resume, cachePolicy: cachePolicy, progress: progress)
        }
    }

    /// Starts an upload (see ``upload(_:progress:)``) whose progress is an `AsyncSequence`.
    public func uploadTask<E: Endpoint>(_ endpoint: E) -> Transfer<E.Response> {
        Transfer { progress throws(CourierError) in
            try await self.upload(endpoint, progress: progress)
        }
    }
}
