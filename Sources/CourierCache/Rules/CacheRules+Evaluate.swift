import Courier
import Foundation
import HTTPTypes

extension CacheRules {
    /// Decides how to answer `request` given the stored response selected for it (RFC 9111 §4).
    ///
    /// Order of the rules:
    /// 1. nothing stored → ``CacheDecision/unusable(_:)`` (or ``CacheDecision/onlyIfCachedMiss``);
    /// 2. non-`GET`, a `Range` the stored response can't answer (several ranges, bytes a stored part
    ///    doesn't hold), a stored part for a request without `Range`, `Vary` mismatch, request
    ///    `no-store` → ``CacheDecision/unusable(_:)`` (request `no-store` bypasses the cache
    ///    entirely, a deliberate choice);
    /// 3. response `no-cache` without field names (with names, the listed fields were not stored),
    ///    request `no-cache` (or `Pragma: no-cache`), age above the request's `max-age` →
    ///    ``CacheDecision/revalidate(_:)``;
    /// 4. fresh (lifetime > age + request `min-fresh`) → ``CacheDecision/fresh(age:)``; an
    ///    `immutable` response has no further effect: fresh entries are never revalidated anyway,
    ///    and a stale one is revalidated like any other;
    /// 5. stale with `must-revalidate` → revalidate (never served stale, not even with `max-stale`);
    /// 6. stale within the request's `max-stale` → ``CacheDecision/staleAcceptable(age:staleness:)``;
    /// 7. stale within the response's `stale-while-revalidate` → ``CacheDecision/staleWhileRevalidate(age:staleness:revalidation:)``;
    /// 8. otherwise → revalidate.
    ///
    /// With `only-if-cached`, anything that would need the network becomes ``CacheDecision/onlyIfCachedMiss``.
    /// - Parameters:
    ///   - request: the request about to be sent.
    ///   - stored: the stored response for the request's key (pick it with `selectVariant(for:among:)`), or `nil`.
    ///   - now: the current time.
    /// - Returns: the decision; see ``CacheDecision`` for what the caller does with each case.
    package func evaluate(request: HTTPRequest, stored: StoredResponse?, now: Date) -> CacheDecision {
        let requestDirectives = CacheControl(request: request.headerFields)
        let decision: CacheDecision
        if let stored {
            decision = evaluate(request: request, requestDirectives: requestDirectives, stored: stored, now: now)
        } else {
            decision = .unusable(.noStoredResponse)
        }
        guard requestDirectives.onlyIfCached else { return decision }
        switch decision {
        case .fresh, .staleAcceptable: return decision
        case .staleWhileRevalidate, .revalidate, .unusable, .onlyIfCachedMiss: return .onlyIfCachedMiss
        }
    }

    /// The index of the variant to use for `request`: the most recent one whose vary selection
    /// matches; a stored part (`206`) only for a request that asks for a range.
    package func selectVariant(for request: HTTPRequest, among variants: [StoredResponse]) -> Int? {
        variants.indices
            .filter { isSelectable(variants[$0], for: request) }
            .max { variants[$0].responseTime < variants[$1].responseTime }
    }

    /// `request` with validators from the stored response: `If-None-Match` from `ETag`, `If-Modified-Since` from `Last-Modified`.
    ///
    /// Validators already on the request are replaced, so a `304` always refers to the stored
    /// response. Without validators the request is returned unchanged (the server answers in full).
    package func conditionalRequest(for request: HTTPRequest, stored: StoredResponse) -> HTTPRequest {
        var conditional = request
        let storedFields = stored.response.headerFields
        if let etag = storedFields[values: .eTag].first {
            conditional.headerFields[.ifNoneMatch] = etag
        }
        if let lastModified = storedFields[values: .lastModified].first, HTTPDate.parse(lastModified) != nil {
            conditional.headerFields[.ifModifiedSince] = lastModified
        }
        return conditional
    }

    private func isSelectable(_ stored: StoredResponse, for request: HTTPRequest) -> Bool {
        // A part never answers a request for the whole. The stored Vary names must agree with the
        // selection; a mismatch means a corrupt or hand-built entry, which is never served.
        guard stored.response.status.code != 206 || request.headerFields.contains(.range),
              let names = VarySelection.varyNames(of: stored.response.headerFields),
              names == stored.varySelection.names
        else { return false }
        return stored.varySelection.matches(request, secrets: secrets, stored: stored.response)
    }

    private func evaluate(
        request: HTTPRequest, requestDirectives: CacheControl, stored: StoredResponse, now: Date
    ) -> CacheDecision {
        guard request.method == .get else { return .unusable(.methodNotCacheable) }
        guard canAnswer(request, from: stored.response) else {
            return .unusable(request.headerFields.contains(.range) ? .rangeRequest : .incompleteResponse)
        }
        guard isSelectable(stored, for: request) else { return .unusable(.varyMismatch) }
        guard !requestDirectives.noStore else { return .unusable(.requestNoStore) }
        let responseDirectives = CacheControl(stored.response.headerFields)
        guard !forbidsStoring(status: stored.response.status.code, directives: responseDirectives) else {
            return .unusable(.responseNoStore)
        }

        // Built only when needed: a fresh hit, the common answer, has no use for a conditional request.
        var revalidate: CacheDecision { .revalidate(conditionalRequest(for: request, stored: stored)) }
        let age = currentAge(of: stored, now: now)
        let lifetime = freshnessLifetime(of: stored.response, responseTime: stored.responseTime)
        if responseDirectives.noCache || requestDirectives.noCache { return revalidate }
        if let maximumAge = requestDirectives.maxAge, age > TimeInterval(maximumAge) { return revalidate }
        if lifetime > age + TimeInterval(requestDirectives.minFresh ?? 0) { return .fresh(age: age) }

        let staleness = max(0, age - lifetime)
        if mustRevalidateWhenStale(responseDirectives) { return revalidate }
        if let maxStale = requestDirectives.maxStale,
           maxStale == CacheControl.unlimited || staleness <= TimeInterval(maxStale) {
            return .staleAcceptable(age: age, staleness: staleness)
        }
        if let window = responseDirectives.staleWhileRevalidate, staleness <= TimeInterval(window) {
            return .staleWhileRevalidate(
                age: age, staleness: staleness, revalidation: conditionalRequest(for: request, stored: stored))
        }
        return revalidate
    }
}
