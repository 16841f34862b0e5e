extension Client {
    /// Sends an endpoint whose body is a file, a form or a stream, telling `progress` how much of the
    /// body has gone, and returns the decoded response.
    ///
    /// The call is ``response(for:cachePolicy:)`` with upload progress: the same chain, retries
    /// (a retried file is read again from its start; progress does not go back), errors and decoding.
    ///
    /// ```swift
    /// let photo = try await client.upload(UploadPhoto(file: picture)) { progress in
    ///     bar.value = progress.fractionCompleted ?? 0
    /// }
    /// ```
    /// - Parameters:
    ///   - endpoint: What to send; its ``Endpoint/body`` is the upload.
    ///   - progress: Called with the bytes sent so far, at most 20 times a second, never
    ///     backwards, and always once the body has gone.
    public func upload<E: Endpoint>(
        _ endpoint: E, progress: @escaping @Sendable (TransferProgress) -> Void
    ) async throws(CourierError) -> Response<E.Response> {
        var call = EndpointCall(endpoint, cachePolicy: nil, otherwise: configuration.cachePolicy)
        call.uploadProgress = ProgressReporter(progress)
        return try decode(try await run(call), for: endpoint).response
    }
}
