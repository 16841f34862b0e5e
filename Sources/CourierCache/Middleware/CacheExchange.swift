import Courier
import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// One GET (or invalidating request) going through the cache: the steps of each policy.
struct CacheExchange: Sendable {
    typealias Network = @Sendable (HTTPRequest) async throws -> (HTTPResponse, HTTPBody?)

    let cache: HTTPCache
    let request: HTTPRequest
    /// The cache's rules, keeping secret values as the store's keyed hashes.
    let rules: CacheRules
    let key: CacheKey
    /// Where the exchange's answer came from: the network unless the cache answered.
    var source: Locked<ResponseSource>
    /// How a stale response is revalidated after the caller has its answer; nil outside a
    /// `Client` and for transfers, which revalidate before answering.
    var refresh: BackgroundRefresh?
    /// Whether the request was filed as anonymous without knowing who is signed in: then a
    /// response the network sent for a request that left with credentials is not stored.
    let filedAsAnonymous: Bool
    /// What the chain below the cache answered, over every network request of the exchange.
    let below: Locked<Below>
    /// Whether the call is a transfer: its body is never gathered in memory (see `CacheExchange+Downloads`).
    var isTransfer = false
    /// The file a download writes, whose whole body the cache may copy.
    var download: FileDownload?
    /// The largest body this call may collect: the client's limit, else ``defaultBodyLimit``.
    let bodyLimit: Int
    /// Where the call reports metrics.
    let telemetry: Telemetry
    /// How stale an entry may be to answer when the network fails: the call's policy's, else the cache's.
    let offlineAllowance: TimeInterval?

    var storage: any CacheStorage { cache.storage }

    // MARK: policies

    /// `CachePolicy.cacheOnly`: any matching entry whatever its age (the app asked for the cache,
    /// so it is `cache`, not `stale`), else `504 Gateway Timeout` without the network.
    func cachedOrGatewayTimeout() async throws -> (HTTPResponse, HTTPBody?) {
        if let hit = try await lookup(), let served = try await serve(hit, as: .cache) {
            return served
        }
        storage.counters.add(misses: 1)
        return gatewayTimeout()
    }

    /// `CachePolicy.alwaysUseCache`: any matching entry whatever its age, else the network (stored).
    func anyCachedOrNetwork(_ network: Network) async throws -> (HTTPResponse, HTTPBody?) {
        if let hit = try await lookup(), let served = try await serve(hit, as: .cache) { return served }
        storage.counters.add(misses: 1)
        return try await networkAndStore(network, fallback: false)
    }

    /// `CachePolicy.networkOnly` and `CachePolicy.networkFirst`: the network, stored for later;
    /// with `fallback`, a failed network answers from the cache within the offline allowance.
    func networkAndStore(_ network: Network, fallback: Bool) async throws -> (HTTPResponse, HTTPBody?) {
        let requestTime = cache.clock
        do {
            let (response, body) = try await network(request)
            if fallback, response.status.kind == .serverError, let stale = try await staleFallback() { return stale }
            return try await storeIfAllowed(response, body, requestTime: requestTime, explicitPolicy: true)
        } catch let error where fallback && Self.isNetworkFailure(error) {
            if let stale = try await staleFallback() { return stale }
            throw error
        }
    }

    /// `CachePolicy.followHTTP`: RFC 9111 freshness, validation and `stale-if-error`.
    func followHTTP(_ network: Network) async throws -> (HTTPResponse, HTTPBody?) {
        let unselected = Locked<[CachedMetadata]>([])
        let hit = try await lookup(unselected: unselected)
        let decision = rules.evaluate(request: request, stored: hit?.metadata.storedResponse, now: cache.clock)
        switch decision {
        case .fresh, .staleAcceptable:
            if let hit, let served = try await serve(hit, as: sourceFor(decision)) {
                return served
            }
            return try await networkAndStore(network, fallback: false)
        case .onlyIfCachedMiss:
            storage.counters.add(misses: 1)
            return gatewayTimeout()
        case .unusable:
            storage.counters.add(misses: 1)
            let candidates = hit.map { [$0.metadata] } ?? unselected.current
            if let served = try await completingPart(among: candidates, network) { return served }
            if hit == nil, let served = try await validatingUnselected(candidates, network) { return served }
            return try await followHTTPNetwork(network, request: request, hit: nil)
        case .staleWhileRevalidate(_, _, let conditional):
            // The caller gets the stored response now, and the entry is revalidated in the
            // background (once at a time). Without background work, revalidate before answering.
            if let refresh, let hit, let served = try await serve(hit, as: .stale) {
                if cache.coordination.beginRevalidation(of: key) {
                    var later = self
                    later.source = Locked(.network)
                    later.refresh = nil
                    // The task holds the chain, not the work: the client's last copy going cancels it.
                    refresh.work.start { [later, network = refresh.network, coordination = cache.coordination, key] in
                        defer { coordination.endRevalidation(of: key) }
                        _ = try? await later.revalidateInBackground(network)
                    }
                }
                return served
            }
            return try await followHTTPNetwork(network, request: conditional, hit: hit)
        case .revalidate(let conditional):
            return try await followHTTPNetwork(network, request: conditional, hit: hit)
        }
    }

    /// The background half of stale-while-revalidate: a conditional request that refreshes the
    /// entry (304) or replaces it (200). A failure is logged and leaves the entry as it was.
    func revalidateInBackground(_ network: Network) async throws -> (HTTPResponse, HTTPBody?) {
        let hit = try await lookup()
        let outgoing = hit.map { rules.conditionalRequest(for: request, stored: $0.metadata.storedResponse) } ?? request
        let requestTime = cache.clock
        let response: HTTPResponse
        let body: HTTPBody?
        do {
            (response, body) = try await network(outgoing)
        } catch {
            logFailedRevalidation(error)
            throw error
        }
        if let hit, response.status == .notModified {
            return try await revalidated(hit, by: response, requestTime: requestTime, network: network)
        }
        guard response.status.kind != .serverError else {
            logFailedRevalidation(CourierError(.unacceptableStatus, detail: "The server answered \(response.status.code)"))
            return (response, body)
        }
        return try await storeIfAllowed(response, body, requestTime: requestTime, explicitPolicy: false)
    }

    private func logFailedRevalidation(_ error: any Error) {
        storage.logger.warning(
            "Background revalidation failed; the stored response is kept",
            metadata: ["url": loggedURL, "error": logged(error)])
    }

    /// The key's URL as a log line may show it: secret query values hidden by the client's list.
    var loggedURL: Logger.MetadataValue {
        "\((rules.secrets?.redaction ?? cache.redaction).redact(url: key.url))"
    }

    /// An error as a log line may show it: every URL and header value on the client's list hidden.
    func logged(_ error: any Error) -> Logger.MetadataValue {
        let redaction = rules.secrets?.redaction ?? cache.redaction
        if let error = error as? CourierError { return "\(error.redacted(with: redaction))" }
        return "\(redaction.redact(text: String(describing: error)))"
    }

    /// The cache's own 504 for a request it can't answer without the network (RFC 9111 §5.2.1.7).
    private func gatewayTimeout() -> (HTTPResponse, HTTPBody?) {
        source.withLock { $0 = .cache }
        return (HTTPResponse(status: .gatewayTimeout), HTTPBody())
    }

    private func sourceFor(_ decision: CacheDecision) -> ResponseSource {
        if case .staleAcceptable = decision { return .stale }
        return .cache
    }

    /// Sends `outgoing`; `unselected` are the stored variants whose tags it lists (a `304` then names one of them).
    func followHTTPNetwork(
        _ network: Network, request outgoing: HTTPRequest, hit: Hit?, unselected: [CachedMetadata] = []
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let requestTime = cache.clock
        let response: HTTPResponse
        let body: HTTPBody?
        do {
            (response, body) = try await network(outgoing)
        } catch where Self.isNetworkFailure(error) {
            if let hit, canServeStaleOnError(hit), let served = try await serve(hit, as: .stale) { return served }
            throw error
        }
        if let hit, response.status == .notModified {
            return try await revalidated(hit, by: response, requestTime: requestTime, network: network)
        }
        if hit == nil, !unselected.isEmpty, response.status == .notModified {
            return try await revalidated(unselected: unselected, by: response, requestTime: requestTime, network: network)
        }
        if let hit, response.status.kind == .serverError, canServeStaleOnError(hit), let served = try await serve(hit, as: .stale) {
            return served
        }
        return try await storeIfAllowed(response, body, requestTime: requestTime, explicitPolicy: false)
    }

    /// A 304: refresh the stored headers and serve the stored body (or the range of it the request asks for).
    func revalidated(_ hit: Hit, by notModified: HTTPResponse, requestTime: Date, network: Network) async throws -> (HTTPResponse, HTTPBody?) {
        let merged = hit.metadata.status == 206
            ? rules.mergeKeepingHeldRange(stored: hit.metadata.headers, notModified: notModified.headerFields)
            : rules.merge(stored: hit.metadata.headers, notModified: notModified.headerFields)
        let responseTime = cache.clock
        _ = try? await storage.updateHeaders(of: hit.metadata, headers: merged, requestTime: requestTime, responseTime: responseTime)
        let head = HTTPResponse(status: .init(code: hit.metadata.status), headerFields: merged)
        guard let answer = rules.storedAnswer(for: request, from: head, bodySize: hit.metadata.bodySize),
              let served = try? await answering(answer, head, hit)
        else {
            // The entry vanished meanwhile (evicted, or replaced by another process): ask again, unconditionally.
            return try await networkAndStore(network, fallback: false)
        }
        storage.counters.add(hits: 1)
        source.withLock { $0 = .revalidated }
        return served
    }

    /// After a successful unsafe request, the stored entries of its URL (and Location targets) go.
    func invalidateAfter(_ response: HTTPResponse) async {
        guard rules.invalidates(method: request.method, status: response.status) else { return }
        var urls = [key.url]
        if let absolute = URL(string: key.url) {
            let full = HTTPRequest(method: request.method, scheme: absolute.scheme, authority: absolute.host.map { host in
                absolute.port.map { "\(host):\($0)" } ?? host
            }, path: request.path, headerFields: request.headerFields)
            urls += rules.invalidationTargets(request: full, response: response).map(CacheKey.normalizedURL)
        }
        // Removals follow the stores accepted before them, of whatever key.
        await cache.coordination.writes.waitForAll()
        for url in Set(urls) {
            _ = try? await storage.removeAll(.url(url, partition: key.partition))
        }
    }

    // MARK: steps

    /// The stored variant matching this request's `Vary` fields (with its body when small), or nil;
    /// when none matches, the stored variants go to `unselected` (to validate or complete). A broken store is a miss.
    func lookup(unselected: Locked<[CachedMetadata]>? = nil) async throws -> Hit? {
        let (rules, request) = (self.rules, self.request)
        await cache.coordination.writes.wait(for: key)
        guard let found = try? await storage.lookup(key, select: { variants in
            let chosen = rules.selectVariant(for: request, among: variants)
            if chosen == nil { unselected?.withLock { $0 = variants } }
            return chosen
        }) else { return nil }
        return Hit(metadata: found.metadata, body: found.body)
    }

    /// The stored response with its body — or, for a `Range` request, the `206` or `416` the cache
    /// builds from it — or nil when the body is gone or the stored response can't answer the request.
    private func serve(_ hit: Hit, as source: ResponseSource) async throws -> (HTTPResponse, HTTPBody?)? {
        guard let answer = rules.storedAnswer(for: request, from: hit.metadata.response, bodySize: hit.metadata.bodySize),
              let served = try? await answering(answer, rules.servedResponse(for: hit.metadata.storedResponse, now: cache.clock), hit)
        else { return nil }
        await storage.recordUse(of: hit.metadata)
        storage.counters.add(hits: 1)
        self.source.withLock { $0 = source }
        return served
    }

    private func canServeStaleOnError(_ hit: Hit) -> Bool {
        rules.canServeStaleOnError(
            stored: hit.metadata.storedResponse, now: cache.clock,
            requestDirectives: CacheControl(request: request.headerFields), extraAllowance: offlineAllowance
        )
    }

    private func staleFallback() async throws -> (HTTPResponse, HTTPBody?)? {
        guard let hit = try await lookup(), canServeStaleOnError(hit) else { return nil }
        return try await serve(hit, as: .stale)
    }

    /// Stores a response the rules (or, for explicit app policies, a 2xx without `no-store`) allow.
    func storeIfAllowed(_ response: HTTPResponse, _ body: HTTPBody?, requestTime: Date, explicitPolicy: Bool) async throws -> (HTTPResponse, HTTPBody?) {
        let storable: Bool
        if explicitPolicy {
            storable = response.status.kind == .successful && response.status != .partialContent
                && !rules.forbidsStoring(status: response.status.code, directives: CacheControl(response.headerFields))
                && !CacheControl(request: request.headerFields).noStore
        } else {
            storable = rules.isStorable(request: request, response: response)
        }
        guard storable, let selection = rules.varySelection(response: response, request: request) else {
            return (response, body)
        }
        if response.status == .partialContent {
            return try await storePart(response, body, selection: selection, requestTime: requestTime)
        }
        return try await store(response, body, selection: selection, requestTime: requestTime)
    }

    /// Whether responses may be stored for this exchange: not when the user they belong to can't be known.
    func userIsKnown() -> Bool {
        guard filedAsAnonymous, below.withLock(\.wasCredentialed) else { return true }
        if cache.coordination.shouldWarnAboutCredentials() {
            storage.logger.error(
                "HTTPCache can't tell which user this response belongs to, so it is not stored: list CredentialsMiddleware before the cache, or give HTTPCache the credential provider",
                metadata: ["url": loggedURL])
        }
        return false
    }

    /// Stores a response the caller found storable under this exchange's key, unless the user it
    /// belongs to can't be known; returns it with its body collected.
    func store(_ response: HTTPResponse, _ body: HTTPBody?, selection: VarySelection, requestTime: Date) async throws -> (HTTPResponse, HTTPBody?) {
        guard userIsKnown() else { return (response, body) }
        if isTransfer { return await storeDownload(response, body, selection: selection, requestTime: requestTime) }
        // Within the client's limit: past it the client would fail a success anyway, and keeps only
        // the first bytes of an error status (never stored cut short).
        let limit = bodyLimit
        guard response.status.kind == .successful || limit == .max else {  // (.max: nothing to cut)
            let prefix = try await collectPrefix(body, limit: limit + 1)
            guard prefix.count <= limit else { return (response, HTTPBody(prefix.prefix(limit))) }
            return try await store(response, bytes: prefix, selection: selection, requestTime: requestTime)
        }
        return try await store(response, bytes: try await collectBody(body, limit: limit), selection: selection, requestTime: requestTime)
    }

    private func store(_ response: HTTPResponse, bytes: Data, selection: VarySelection, requestTime: Date) async throws -> (HTTPResponse, HTTPBody?) {
        await store(storable(response, selection: selection, requestTime: requestTime), body: .bytes(bytes))
        return (response, HTTPBody(bytes))
    }

    /// What ``store(_:body:)`` keeps of a response: its key, selection, status and storable fields.
    func storable(_ response: HTTPResponse, selection: VarySelection, requestTime: Date) -> StorableResponse {
        StorableResponse(
            key: key, varySelection: selection, status: response.status.code, headers: rules.fieldsToStore(response.headerFields),
            requestTime: requestTime, responseTime: cache.clock)
    }

    /// Stores a response, best effort (the storage logs and counts its failures), and counts what
    /// it stored and evicted. Bytes are written after the caller has its answer (see
    /// ``StoresInFlight``); a download's file before the download returns, since the app may move it.
    func store(_ response: StorableResponse, body: StorableBody) async {
        guard case .bytes = body else { return await storeNow(response, body: body) }
        cache.coordination.writes.start(key) { await self.storeNow(response, body: body) }
    }

    private func storeNow(_ response: StorableResponse, body: StorableBody) async {
        do {
            let outcome = try await storage.store(response, body: body)
            if outcome.stored != nil { telemetry.count(MetricName.cacheStored, []) }
            if outcome.evictedCount > 0 { telemetry.count(MetricName.cacheEvictedBytes, [], by: outcome.evictedBytes) }
        } catch {
            storage.logger.error("A response could not be stored", metadata: ["url": loggedURL, "error": logged(error)])
        }
    }

    /// The largest body stored outside a Courier client (whose own limit applies inside one).
    static let defaultBodyLimit = 16 << 20

    /// Whether an error means the network could not deliver an answer (not a cancellation).
    static func isNetworkFailure(_ error: any Error) -> Bool {
        let kind = CourierError.from(transportError: error).kind
        return [.noConnection, .timedOut, .connectionLost, .transport].contains(kind)
    }
}

/// A stored variant found for a request, with its body when it was small enough to read at once.
struct Hit: Sendable {
    var metadata: CachedMetadata
    var body: Data?

    /// The body, read now when the lookup left it on disk; nil when the entry is gone.
    func loadBody(from storage: any CacheStorage) async throws -> Data? {
        if let body { return body }
        return try await storage.body(of: metadata)
    }
}

/// What the chain below a cache answered over an exchange's network requests.
struct Below: Sendable {
    /// The transport calls they took.
    var attempts = 0
    /// Whether any of them left with credentials (see `Answer.wasCredentialed`).
    var wasCredentialed = false

    /// Counts in one more answer.
    mutating func add(_ answer: Answer) {
        attempts += answer.attempts
        wasCredentialed = wasCredentialed || answer.wasCredentialed
    }
}

/// Where and how an exchange revalidates a stale response after its caller has the answer.
struct BackgroundRefresh: Sendable {
    /// The client's background work, which the refresh runs in.
    let work: BackgroundWork
    /// The chain below the cache, with a context of the background's own.
    let network: CacheExchange.Network
}
