import Courier

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
        let breaker = coordination.breaker.counts
        return CacheStatistics(
            hits: counted.hits, misses: counted.misses, evictions: counted.evictions, failures: counted.failures,
            skipped: breaker.skipped, entryCount: totals.entryCount, totalBytes: totals.totalBytes)
    }

    /// Removes every stored response; the removed bytes leave the file too.
    public func clear() async throws {
        await coordination.writes.waitForAll()
        _ = try await storage.removeAll(.everything)
    }

    /// Removes the stored responses of one user identity (as given to `Credentials`); the removed
    /// bytes leave the file too.
    public func clear(identity: String) async throws {
        await coordination.writes.waitForAll()
        _ = try await storage.removeAll(.partition(Self.partition(ofUser: identity)))
    }

    /// Removes the stored responses of one endpoint, for every user.
    public func remove(_ endpoint: some Endpoint, in client: Client) async throws {
        let url = client.baseURL.absoluteString(appendingRequestPath: try client.requestPath(for: endpoint))
        let ignored = ignoredQueryItems.union(endpoint.cachePolicy?.ignoredQueryItems ?? [])
        guard let key = keyURL(url, ignoring: ignored, secrets: try await storage.secrets(alsoNamedBy: client.configuration.redaction)) else { return }
        await coordination.writes.waitForAll()
        _ = try await storage.removeAll(.url(key, partition: nil))
    }

    /// Clears a user's partition whenever that user signs out of `credentials`.
    public func clearPartition(onSignOutOf credentials: CredentialStore) {
        credentials.onSignOut { identity in
            guard let identity else { return }
            Task { try? await self.clear(identity: identity) }
        }
    }
}
