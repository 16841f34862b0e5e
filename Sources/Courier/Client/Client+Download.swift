import Foundation

extension Client {
    /// Downloads an endpoint's response body into a file, streaming it to disk as it arrives.
    ///
    /// The call goes through the same middleware chain (credentials, retries, token refresh,
    /// logging) and error model as ``send(_:cachePolicy:)``. The bytes go to a
    /// temporary file in `destination`'s folder and replace `destination` only when complete: a
    /// failed or cancelled download leaves no half file there, and a file already there stays.
    /// The endpoint's timeout is an idle timeout: no bytes for that long, not the whole download.
    ///
    /// A download cut after some bytes (a lost connection, a timeout, a cancel) keeps them when the
    /// response had a validator (a strong `ETag` or `Last-Modified`): a retry (``RetryMiddleware``)
    /// asks only for the rest with `Range` + `If-Range`, and the error carries
    /// ``CourierError/resumableDownload`` to pass back as `resumingFrom` later. A server that answers
    /// the whole file instead (it changed, or it ignores ranges) restarts the file cleanly.
    ///
    /// A download bypasses the HTTP cache unless asked: give a `cachePolicy` (or declare one on the
    /// endpoint) and a cache in the chain stores the file's bytes as they are on disk, a chunk at a
    /// time, and answers later downloads from the store by the policy's rules, streamed into the file
    /// the same way (see <doc:Transfers>). Nothing is held whole in memory either way.
    ///
    /// ```swift
    /// let file = try await client.download(MonthlyReport(month: 11), to: reportsFolder.appending(path: "november.pdf")) { progress in
    ///     print(progress.fractionCompleted ?? 0)
    /// }
    /// ```
    /// - Parameters:
    ///   - endpoint: What to download; its `Response` type is not used.
    ///   - destination: The file to create or replace; its folder must exist.
    ///   - resume: The state of an earlier, cut download of the same resource, if any.
    ///   - cachePolicy: How a cache in the chain treats the download; nil uses the endpoint's
    ///     policy, else ``CachePolicy/withoutCache`` (not the client's default).
    ///   - progress: Called with the bytes so far, at most 20 times a second, never backwards, and
    ///     always at the end.
    /// - Returns: `destination`, with the response's status, headers and timing.
    /// - Throws: ``CourierError``: ``CourierError/Kind/file`` when the folder is missing or a write
    ///   fails (a full disk), ``CourierError/Kind/invalidResponse`` for a 206 that isn't the range
    ///   asked for, the usual kinds for the network and for an error status.
    public func download<E: Endpoint>(
        _ endpoint: E,
        to destination: URL,
        resumingFrom resume: ResumableDownload? = nil,
        cachePolicy: CachePolicy? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(CourierError) -> Response<URL> {
        let download = try FileDownload(destination: destination, resumingFrom: resume, progress: progress)
        var call = EndpointCall(endpoint, cachePolicy: cachePolicy, otherwise: .withoutCache)
        call.destination = .file(download)
        do throws(CourierError) {
            call = try await run(call)
            return response(destination, of: call, bodySize: Int(call.downloadedSize ?? 0))
        } catch {
            throw download.abandon(after: error)
        }
    }
}
