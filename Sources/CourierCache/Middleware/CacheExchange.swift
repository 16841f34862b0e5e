import Courier
import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// One GET (or invalidating request) going through the cache: the steps of each policy.
struct CacheExchange: Sendable {
    /// The chain below the cache, whose answer carries its facts (attempts, credentials) up.
    typealias Network = @Sendable (HTTPRequest) async throws -> Answer

    let cache: HTTPCache
    let request: HTTPRequest
    /// The cache's rules, keeping secret values as the store's keyed hashes.
    let rules: CacheRules
    let key: CacheKey
    /// How a stale response is revalidated after the caller has its answer; nil outside a
    /// `Client` and for transfers, which revalidate before answering.
    var refresh: BackgroundRefresh?
    /// The generation of the key's partition when the call started (see
    /// ``CacheCoordination/generation(of:)``): a clear since then keeps its response out.
    var generation = 0
    /// Where the partition's clears stood in the storage before this exchange sent anything: a
    /// clear on another server of a fleet since then keeps its response out.
    let clearMarks = ClearMarkRead()
    /// Whether the request was filed as nobody's: then a response to a request that left with
    /// credentials is not stored (see `mayStore(_:sent:)`).
    let filedAsAnonymous: Bool
    /// Whether a client's context or the cache's provider said nobody is signed in: then a chain
    /// below that can't say what left is trusted to have added no user's credentials.
    var nobodyIsSignedIn = false
    /// The longest this call waits for another caller's miss of its key (see ``MissFlights``): the
    /// call's timeout, or 60 s outside a client.
    var missWaitLimit = Duration.seconds(60)
    /// The flight this exchange claimed across a fleet, while it fetches the key (see ``HeldFlight``).
    var heldFlight: HeldFlight?
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

    var storage: ObservedStorage { cache.callStorage }

    // MARK: policies

    /// `CachePolicy.cacheOnly`: any matching entry whatever its age (the app asked for the cache,
    /// so it is `cache`, not `stale`), else `504 Gateway Timeout` without the network.
    func cachedOrGatewayTimeout() async throws -> Answer {
        if let hit = try await lookup().hit, let served = try await serve(hit, as: .cache) {
            return served
        }
        cache.counters.add(misses: 1)
        return gatewayTimeout()
    }

    /// `CachePolicy.alwaysUseCache`: any matching entry whatever its age, else the network (stored).
    func anyCachedOrNetwork(_ network: Network) async throws -> Answer {
        if let hit = try await lookup().hit, let served = try await serve(hit, as: .cache) { return served }
        cache.counters.add(misses: 1)
        return try await networkAndStore(network, fallback: false)
    }

    /// `CachePolicy.networkOnly` and `CachePolicy.networkFirst`: the network, stored for later;
    /// with `fallback`, a failed network answers from the cache within the offline allowance.
    func networkAndStore(_ network: Network, fallback: Bool) async throws -> Answer {
        let requestTime = cache.clock
        do {
            let answer = try await network(request)
            if fallback, answer.response.status.kind == .serverError, let stale = try await staleFallback() { return stale.after(answer) }
            return try await storeIfAllowed(answer, requestTime: requestTime, explicitPolicy: true)
        } catch let error where fallback && Self.isNetworkFailure(error) {
            if let stale = try await staleFallback() { return stale }
            throw error
        }
    }

    /// `CachePolicy.followHTTP`: RFC 9111 freshness, validation and `stale-if-error`. A miss of a
    /// key another caller is fetching waits for that answer (`sharingMisses`, see ``MissFlights``).
    func followHTTP(_ network: Network, sharingMisses: Bool = true) async throws -> Answer {
        let (hit, unselected, turn) = try await lookup(claimingFlight: sharingMisses && sharesMisses ? flightClaim : nil)
        let decision = rules.evaluate(request: request, stored: hit?.metadata.storedResponse, now: cache.clock)
        switch decision {
        case .fresh, .staleAcceptable:
            if let hit, let served = try await serve(hit, as: sourceFor(decision)) {
                return served
            }
            return try await networkAndStore(network, fallback: false)
        case .onlyIfCachedMiss:
            cache.counters.add(misses: 1)
            return gatewayTimeout()
        case .unusable:
            let candidates = hit.map { [$0.metadata] } ?? unselected
            if sharingMisses, hit == nil, candidates.isEmpty, sharesMisses {
                return try await sharingTheMiss(network, turn: turn)
            }
            cache.counters.add(misses: 1)
            if let served = try await completingPart(among: candidates, network) { return served }
            if hit == nil, let served = try await validatingUnselected(candidates, network) { return served }
            return try await followHTTPNetwork(network, request: request, hit: nil)
        case .staleWhileRevalidate(_, _, let conditional):
            // The caller gets the stored response now, and the entry is revalidated in the
            // background (once at a time, in the process and the fleet). Without background work,
            // revalidate before answering.
            if let refresh, let hit, let served = try await serve(hit, as: .stale) {
                if cache.coordination.beginRevalidation(of: key) {
                    var later = self
                    later.refresh = nil
                    // The task holds the chain, not the work: the client's last copy going cancels it.
                    refresh.work.start { [later, network = refresh.network, coordination = cache.coordination, key] in
                        defer { coordination.endRevalidation(of: key) }
                        await later.revalidateOnceAcrossTheFleet(network)
                    }
                }
                return served
            }
            return try await followHTTPNetwork(network, request: conditional, hit: hit)
        case .revalidate(let conditional):
            return try await followHTTPNetwork(network, request: conditional, hit: hit)
        }
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
    private func gatewayTimeout() -> Answer {
        Answer(response: HTTPResponse(status: .gatewayTimeout), body: HTTPBody(), source: .cache, attempts: 0)
    }

    private func sourceFor(_ decision: CacheDecision) -> ResponseSource {
        if case .staleAcceptable = decision { return .stale }
        return .cache
    }

    /// Sends `outgoing`; `unselected` are the stored variants whose tags it lists (a `304` then names one of them).
    func followHTTPNetwork(
        _ network: Network, request outgoing: HTTPRequest, hit: StoredVariant?, unselected: [VariantMetadata] = []
    ) async throws -> Answer {
        let requestTime = cache.clock
        let answer: Answer
        do {
            answer = try await network(outgoing)
        } catch where Self.isNetworkFailure(error) {
            if let hit, canServeStaleOnError(hit), let served = try await serve(hit, as: .stale) { return served }
            throw error
        }
        let status = answer.response.status
        if let hit, status == .notModified {
            return try await revalidated(hit, by: answer, requestTime: requestTime, network: network)
        }
        if hit == nil, !unselected.isEmpty, status == .notModified {
            return try await revalidated(unselected: unselected, by: answer, requestTime: requestTime, network: network)
        }
        if let hit, status.kind == .serverError, canServeStaleOnError(hit), let served = try await serve(hit, as: .stale) {
            return served.after(answer)
        }
        return try await storeIfAllowed(answer, requestTime: requestTime, explicitPolicy: false)
    }

    /// The largest body stored outside a Courier client (whose own limit applies inside one).
    static let defaultBodyLimit = 16 << 20

    /// Whether an error means the network could not deliver an answer (not a cancellation).
    static func isNetworkFailure(_ error: any Error) -> Bool {
        let kind = CourierError.from(transportError: error).kind
        return [.noConnection, .timedOut, .connectionLost, .transport].contains(kind)
    }
}
