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
                response, answer.body, selection: selection, requestTime: requestTime, wasCredentialed: answer.wasCredentialed))
        }
        return answer.replacing(with: try await store(
            response, answer.body, selection: selection, requestTime: requestTime, wasCredentialed: answer.wasCredentialed))
    }

    /// Whether a response may be stored for this exchange: not when the user it belongs to can't be
    /// known (the request was filed as nobody's, and `wasCredentialed`: it left the chain below with credentials).
    func userIsKnown(wasCredentialed: Bool) -> Bool {
        guard filedAsAnonymous, wasCredentialed else { return true }
        if cache.coordination.shouldWarnAboutCredentials() {
            cache.logger.error(
                "HTTPCache can't tell which user this response belongs to, so it is not stored: list CredentialsMiddleware before the cache, or give HTTPCache the credential provider",
                metadata: ["url": loggedURL])
        }
        return false
    }

    /// Whether a shared cache may keep `response` (see `CacheRules.sharedCacheMayStore`): the
    /// request carried credentials if it had them here, or left the chain below with them (`wasCredentialed`).
    func sharedRulesAllow(_ response: HTTPResponse, wasCredentialed: Bool) -> Bool {
        guard rules.isShared else { return true }
        let redaction = rules.secrets?.redaction ?? Redaction()
        let credentialed = wasCredentialed || request.headerFields.contains { redaction.isCredential(header: $0.name) }
        return rules.sharedCacheMayStore(response, credentialed: credentialed)
    }

    /// Stores a response the caller found storable under this exchange's key, unless the user it
    /// belongs to can't be known or the shared rules forbid it (`wasCredentialed`: the request left
    /// the chain below with credentials); returns it with its body collected.
    func store(
        _ response: HTTPResponse, _ body: HTTPBody?, selection: VarySelection, requestTime: Date, wasCredentialed: Bool
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard userIsKnown(wasCredentialed: wasCredentialed), sharedRulesAllow(response, wasCredentialed: wasCredentialed) else {
            return (response, body)
        }
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

    /// Stores a response, best effort (a failure is counted, and logged once a run of them), and
    /// counts what it stored and evicted. Bytes are written after the caller has its answer (see
    /// ``StoresInFlight``); a download's file before the download returns, since the app may move it.
    func store(_ response: StorableResponse, body: CacheBody) async {
        guard body.bytes != nil else { return await storeNow(response, body: body) }
        cache.coordination.writes.start(key) { await self.storeNow(response, body: body) }
    }

    private func storeNow(_ response: StorableResponse, body: CacheBody) async {
        // A clear of the partition since the call started (a sign-out) wins over its response.
        guard cache.coordination.generation(of: key.partition) == generation,
              let outcome = try? await storage.store(response, body: body)
        else { return }
        if outcome.stored != nil { telemetry.count(MetricName.cacheStored, []) }
        if outcome.evictedCount > 0 { telemetry.count(MetricName.cacheEvictedBytes, [], by: outcome.evictedBytes) }
    }
}
