import Courier
import Logging

// What an app does with its cache beside calls: wait for writes, read statistics, clear.
extension HTTPCache {
    /// Returns once the responses accepted for storing so far are written (each call stores its
    /// response after it has returned; later lookups wait for it on their own).
    public func flush() async {
        await coordination.writes.waitForAll()
    }

    /// What this cache counted, and what its storage holds once the responses accepted so far
    /// are written. While the storage fails or rests (see ``HTTPCache``), it answers at once from
    /// memory: the counts, with the entries and bytes it last read.
    public func statistics() async throws -> CacheStatistics {
        if coordination.breaker.isClosed {
            await coordination.writes.waitForAll()
            if coordination.breaker.isClosed, let totals = try? await callStorage.totals() {
                coordination.lastTotals.withLock { $0 = totals }
            }
        }
        let totals = coordination.lastTotals.current
        let counted = counters.snapshot
        return CacheStatistics(
            hits: counted.hits, misses: counted.misses, evictions: counted.evictions, failures: counted.failures,
            skipped: coordination.breaker.skipped, entryCount: totals.count, totalBytes: totals.totalBytes)
    }

    /// Removes every stored response; the removed bytes leave the file too.
    public func clear() async throws {
        // A new generation first: a response on its way is never stored after the clear.
        coordination.clearing(nil)
        await coordination.writes.waitForAll()
        _ = try await storage.removeAll(.everything)
    }

    /// Removes the stored responses of one user identity (as given to `Credentials`); the removed
    /// bytes leave the file too. A response of that user on its way when the clear starts (a call
    /// still at the network, a background revalidation) is not stored after it, in this process.
    /// - Returns: How many stored responses were removed.
    /// - Throws: The storage's error; the removal may then have run or not (a timeout): call it again.
    @discardableResult
    public func clear(identity: String) async throws -> Int {
        let partition = Self.partition(ofUser: identity)
        coordination.clearing(partition)
        await coordination.writes.waitForAll()
        return try await storage.removeAll(.partition(partition))
    }

    /// Removes the stored responses of one endpoint, for every user.
    public func remove(_ endpoint: some Endpoint, in client: Client) async throws {
        let url = client.baseURL.absoluteString(appendingRequestPath: try client.requestPath(for: endpoint))
        let ignored = ignoredQueryItems.union(endpoint.cachePolicy?.ignoredQueryItems ?? [])
        guard let key = keyURL(url, ignoring: ignored, secrets: try await storage.secrets(alsoNamedBy: client.configuration.redaction)) else { return }
        await coordination.writes.waitForAll()
        _ = try await storage.removeAll(.url(key, partition: nil))
    }

    /// Clears a user's partition whenever that user signs out of `credentials`, trying three
    /// times in all (0.5 s, then 1 s apart) when the storage fails.
    /// - Parameters:
    ///   - credentials: The store whose sign-outs clear the user.
    ///   - outcome: Told how each clear ended: the number of responses removed, or the storage's
    ///     last error (the cache has also logged it). Nil to rely on the log alone.
    public func clearPartition(
        onSignOutOf credentials: CredentialStore, outcome: (@Sendable (_ identity: String, Result<Int, any Error>) -> Void)? = nil
    ) {
        credentials.onSignOut { identity in
            guard let identity else { return }
            Task {
                let result = await self.clearWithRetries(identity: identity)
                if case .failure(let error) = result {
                    self.logger.error(
                        "The cache could not clear a signed-out user's responses",
                        metadata: ["error": "\(self.redaction.redact(text: String(describing: error)))"])
                }
                outcome?(identity, result)
            }
        }
    }

    /// ``clear(identity:)``, tried again after a failure: a removal that timed out may not have run.
    private func clearWithRetries(identity: String) async -> Result<Int, any Error> {
        var last: (any Error)?
        for wait in [Duration.zero, .milliseconds(500), .seconds(1)] {
            if wait > .zero { try? await Task.sleep(for: wait) }
            do { return .success(try await clear(identity: identity)) } catch { last = error }
        }
        return .failure(last ?? CancellationError())
    }
}
