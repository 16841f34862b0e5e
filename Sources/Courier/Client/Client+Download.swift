import Foundation

extension Client {
    /// Downloads an endpoint's response body into a file, streaming it to disk as it arrives.
    ///
    /// The call goes through the same middleware chain (credentials, retries, token refresh,
    /// logging) and error model as ``send(_:cachePolicy:)``, without the cache. The bytes go to a
    /// temporary file in `destination`'s folder and replace `destination` only when complete: a
    /// failed or cancelled download leaves no half file there, and a file already there stays.
    /// The endpoint's timeout is an idle timeout: no bytes for that long, not the whole download.
    ///
    /// ```swift
    /// let file = try await client.download(MonthlyReport(month: 11), to: reportsFolder.appending(path: "november.pdf")) { progress in
    ///     print(progress.fractionCompleted ?? 0)
    /// }
    /// ```
    /// - Parameters:
    ///   - endpoint: What to download; its `Response` type is not used.
    ///   - destination: The file to create or replace; its folder must exist.
    ///   - progress: Called with the bytes so far, at most 20 times a second and always at the end.
    /// - Returns: `destination`, with the response's status, headers and timing.
    /// - Throws: ``CourierError``: ``CourierError/Kind/file`` when the folder is missing or a write
    ///   fails (a full disk), the usual kinds for the network and for an error status.
    public func download<E: Endpoint>(
        _ endpoint: E,
        to destination: URL,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws(CourierError) -> Response<URL> {
        let download = FileDownload(destination: destination, progress: progress)
        let validated = try await run(EndpointCall(endpoint), policy: .withoutCache, destination: .file(download))
        return Response(
            value: destination, head: validated.head, request: validated.request, source: validated.source,
            duration: ContinuousClock.now - validated.started, attempts: validated.attempts, bodySize: Int(validated.bodySize ?? 0)
        )
    }
}
