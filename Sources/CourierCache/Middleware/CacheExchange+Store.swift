import Courier
import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

/// Storing the network's response of an exchange, when the rules and the user allow it.
extension CacheExchange {
    /// Stores the network's answer when the rules (or, for explicit app policies, a 2xx without
    /// `no-store`) allow; returns it, its body collected when it was stored.
    func storeIfAllowed(_ answer: Answer, requestTime: Date, explicitPolicy: Bool) async throws -> Answer {
        let response = answer.response
        let storable: Bool
        if explicitPolicy {
            storable = response.status.kind == .successful && response.status != .partialContent
                && !rules.forbidsStoring(status: response.status.code, directives: CacheControl(response.headerFields))
                && !CacheControl(request: request.headerFields).noStore
        } else {
            storable = rules.isStorable(request: request, response: response)
        }
        guard storable, let selection = rules.varySelection(response: response, request: request) else {
            return answer
        }
        if response.status == .partialContent {
            return answer.replacing(with: try await storePart(
                response, answer.body, selection: selection, requestTime: requestTime, sent: answer.credentials))
        }
        return answer.replacing(with: try await store(
            response, answer.body, selection: selection, requestTime: requestTime, sent: answer.credentials))
    }

    /// Whether `response` may be stored under this exchange's key, given what its request left the
    /// chain below with (`sent`):
    /// - filed as nobody's and sent with credentials: never, since the user it belongs to can't be
    ///   known (logged once);
    /// - filed as nobody's while nothing below could say what left (a generated client whose
    ///   transport is not Courier's) and nothing said nobody is signed in: only what RFC 9111 §3.5
    ///   lets a shared cache keep from a request with credentials (`public`, `s-maxage`,
    ///   `must-revalidate`), since a middleware below may have added a user's;
    /// - in a shared cache, its rules, credentialed unless the request is known to have left without.
    func mayStore(_ response: HTTPResponse, sent: SentCredentials) -> Bool {
        let credentialed = sent.and(SentCredentials(request.headerFields, redaction: rules.secrets?.redaction ?? Redaction()))
        if filedAsAnonymous, credentialed == .present {
            if cache.coordination.shouldWarnAboutCredentials() {
                cache.logger.error(
                    "HTTPCache can't tell which user this response belongs to, so it is not stored: list CredentialsMiddleware before the cache, or give HTTPCache the credential provider",
                    metadata: ["url": loggedURL])
            }
            return false
        }
        var rules = rules
        if filedAsAnonymous, credentialed == .unknown, !nobodyIsSignedIn { rules.isShared = true }
        return rules.sharedCacheMayStore(response, credentialed: credentialed != .absent)
    }

    /// Stores a response the caller found storable under this exchange's key, unless what its request
    /// left the chain below with (`sent`) forbids it (see ``mayStore(_:sent:)``); returns it with its
    /// body collected.
    func store(
        _ response: HTTPResponse, _ body: HTTPBody?, selection: VarySelection, requestTime: Date, sent: SentCredentials
    ) async throws -> Answer {
        guard mayStore(response, sent: sent) else {
            return Answer(response: response, body: body)
        }
        if isTransfer { return await storeDownload(response, body, selection: selection, requestTime: requestTime) }
        // Within the client's limit: past it the client would fail a success anyway, and keeps only
        // the first bytes of an error status (never stored cut short).
        let limit = bodyLimit
        guard response.status.kind == .successful || limit == .max else {  // (.max: nothing to cut)
            let prefix = try await collectPrefix(body, limit: limit + 1)
            guard prefix.count <= limit else { return Answer(response: response, whole: prefix.prefix(limit)) }
            return try await store(response, bytes: prefix, selection: selection, requestTime: requestTime)
        }
        return try await store(response, bytes: try await collectBody(body, limit: limit), selection: selection, requestTime: requestTime)
    }

    private func store(_ response: HTTPResponse, bytes: Data, selection: VarySelection, requestTime: Date) async throws -> Answer {
        await store(storable(response, selection: selection, requestTime: requestTime), body: .bytes(bytes))
        return Answer(response: response, whole: bytes)
    }

    /// What ``store(_:body:)`` keeps of a response: its key, selection, status and storable fields.
    func storable(_ response: HTTPResponse, selection: VarySelection, requestTime: Date) -> VariantToStore {
        VariantToStore(
            key: key, varySelection: selection, status: response.status.code, headers: rules.fieldsToStore(response.headerFields),
            requestTime: requestTime, responseTime: cache.clock, clearMark: clearMarks.mark)
    }

    /// Stores a response, best effort (a failure is counted, and logged once a run of them), and
    /// counts what it stored and evicted. Bytes are written after the caller has its answer (see
    /// ``StoresInFlight``); a download's file before the download returns, since the app may move it.
    func store(_ response: VariantToStore, body: CacheBody) async {
        heldFlight?.storing()
        guard body.bytes != nil else { return await storeNow(response, body: body) }
        cache.coordination.writes.start(key) { await self.storeNow(response, body: body) }
    }

    private func storeNow(_ response: VariantToStore, body: CacheBody) async {
        var outcome: StoreOutcome?
        // A clear of the partition since the call started (a sign-out) wins over its response.
        if cache.coordination.generation(of: key.partition) == generation {
            outcome = try? await storage.store(response, body: body)
        }
        await heldFlight?.storeEnded(stored: outcome?.stored != nil)
        guard let outcome else { return }
        if outcome.stored != nil { telemetry.count(MetricName.cacheStored, []) }
        if outcome.evictedCount > 0 { telemetry.count(MetricName.cacheEvictedBytes, [], by: outcome.evictedBytes) }
    }
}
