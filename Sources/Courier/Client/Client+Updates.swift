import Foundation

extension Client {
    /// Sends an endpoint and streams its values: next for each value, then finished or an error.
    ///
    /// With ``CachePolicy/useCacheAndRequest`` or ``CachePolicy/useCacheAndRequestWithoutRecache``
    /// the stream yields the cached value first (when there is one), then the network value. Every
    /// other policy yields one value. Cancelling the consuming task cancels the request.
    /// - Parameters:
    ///   - endpoint: What to send.
    ///   - cachePolicy: Overrides the endpoint's and the client's policy.
    ///   - skipUnchanged: Skip the network value when its body equals the cached one.
    public func updates<E: Endpoint>(
        for endpoint: E,
        cachePolicy: CachePolicy? = nil,
        skipUnchanged: Bool = false
    ) -> AsyncThrowingStream<Response<E.Response>, any Error> {
        let policy = cachePolicy ?? endpoint.cachePolicy ?? configuration.cachePolicy
        return AsyncThrowingStream { continuation in
            let task = Task {
                do throws(CourierError) {
                    guard policy.deliversTwice else {
                        continuation.yield(try await perform(endpoint, cachePolicy: policy).response)
                        continuation.finish()
                        return
                    }
                    // A miss (or an unreadable entry, or no cache in the chain: a `504` without the
                    // network) is not an error here: the network value follows.
                    let cached = try? await perform(endpoint, cachePolicy: .cacheOnly)
                    if let cached { continuation.yield(cached.response) }
                    let networkPolicy: CachePolicy = policy.mode == .useCacheAndRequest ? .networkOnly : .withoutCache
                    let fresh = try await perform(endpoint, cachePolicy: networkPolicy)
                    if !(skipUnchanged && fresh.body == cached?.body) { continuation.yield(fresh.response) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
