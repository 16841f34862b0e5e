import Courier
import CourierCache
import Foundation
import HTTPTypes
import Testing

@Suite struct EvaluateTests {
    let rules = CacheRules()
    let t0 = RuleFixtures.t0

    /// Response Cache-Control × age → decision, for a plain GET.
    @Test(arguments: [
        ("max-age=60", 0.0, DecisionKind.fresh),
        ("max-age=60", 59, .fresh),
        ("max-age=60", 60, .revalidate),
        ("max-age=60", 3600, .revalidate),
        ("max-age=0", 0, .revalidate),
        ("no-cache", 0, .revalidate),
        ("no-cache, max-age=3600", 10, .revalidate),
        ("no-cache=\"Set-Cookie\", max-age=3600", 10, .fresh), // stored without Set-Cookie, the rest serves
        ("must-revalidate, max-age=60", 30, .fresh),
        ("must-revalidate, max-age=60", 61, .revalidate),
        ("immutable, max-age=60", 30, .fresh),
        ("immutable, max-age=60", 61, .revalidate),
        ("private, max-age=60", 30, .fresh),
        ("s-maxage=3600", 10, .revalidate),
        ("s-maxage=3600, max-age=60", 10, .fresh),
        ("proxy-revalidate, max-age=60", 61, .revalidate),
        ("max-age=60, stale-while-revalidate=30", 80, .staleWhileRevalidate),
        ("max-age=60, stale-while-revalidate=30", 91, .revalidate),
        ("max-age=60, stale-while-revalidate=30, must-revalidate", 80, .revalidate),
        ("max-age=60, stale-if-error=600", 80, .revalidate),
        ("max-age=garbage", 0, .revalidate),
        ("no-store, max-age=60", 0, .unusable),
        ("", 0, .revalidate),
    ])
    func responseDirectivesByAge(cacheControl: String, age: TimeInterval, expected: DecisionKind) {
        let stored = RuleFixtures.stored(cacheControl.isEmpty ? [] : [("Cache-Control", cacheControl)])
        let decision = rules.evaluate(request: RuleFixtures.request(), stored: stored, now: t0.addingTimeInterval(age))
        #expect(DecisionKind(decision) == expected)
    }

    /// Request Cache-Control × age → decision, against `max-age=60`.
    @Test(arguments: [
        ("max-age=10", 5.0, DecisionKind.fresh),
        ("max-age=10", 11, .revalidate),
        ("max-age=0", 1, .revalidate),
        ("min-fresh=20", 30, .fresh),
        ("min-fresh=20", 45, .revalidate),
        ("max-stale=30", 80, .staleAcceptable),
        ("max-stale=30", 91, .revalidate),
        ("max-stale", 100_000, .staleAcceptable),
        ("max-stale, max-age=10", 100, .revalidate),
        ("no-cache", 0, .revalidate),
        ("no-store", 0, .unusable),
        ("only-if-cached", 10, .fresh),
        ("only-if-cached", 61, .onlyIfCachedMiss),
        ("only-if-cached, max-stale=100", 100, .staleAcceptable),
        ("only-if-cached, no-cache", 0, .onlyIfCachedMiss),
    ])
    func requestDirectivesByAge(cacheControl: String, age: TimeInterval, expected: DecisionKind) {
        let stored = RuleFixtures.stored([("Cache-Control", "max-age=60")])
        let request = RuleFixtures.request([("Cache-Control", cacheControl)])
        #expect(DecisionKind(rules.evaluate(request: request, stored: stored, now: t0.addingTimeInterval(age))) == expected)
    }

    @Test(arguments: ["max-stale", "max-stale=100000"])
    func mustRevalidateBeatsMaxStale(requestDirective: String) {
        let stored = RuleFixtures.stored([("Cache-Control", "max-age=60, must-revalidate")])
        let request = RuleFixtures.request([("Cache-Control", requestDirective)])
        #expect(DecisionKind(rules.evaluate(request: request, stored: stored, now: t0.addingTimeInterval(120))) == .revalidate)
    }

    @Test func pragmaNoCacheRevalidates() {
        let stored = RuleFixtures.stored([("Cache-Control", "max-age=60")])
        let request = RuleFixtures.request([("Pragma", "no-cache")])
        #expect(DecisionKind(rules.evaluate(request: request, stored: stored, now: t0)) == .revalidate)
    }

    @Test func nothingStored() {
        #expect(rules.evaluate(request: RuleFixtures.request(), stored: nil, now: t0) == .unusable(.noStoredResponse))
        let onlyIfCached = RuleFixtures.request([("Cache-Control", "only-if-cached")])
        #expect(rules.evaluate(request: onlyIfCached, stored: nil, now: t0) == .onlyIfCachedMiss)
    }

    @Test func freshCarriesAgeAndStaleCarriesStaleness() {
        let stored = RuleFixtures.stored([("Cache-Control", "max-age=60")])
        #expect(rules.evaluate(request: RuleFixtures.request(), stored: stored, now: t0.addingTimeInterval(12)) == .fresh(age: 12))
        let request = RuleFixtures.request([("Cache-Control", "max-stale=100")])
        #expect(rules.evaluate(request: request, stored: stored, now: t0.addingTimeInterval(70)) == .staleAcceptable(age: 70, staleness: 10))
    }

    @Test func revalidationCarriesValidators() throws {
        let lastModified = HTTPDate.string(from: t0.addingTimeInterval(-1000))
        let stored = RuleFixtures.stored([("ETag", "\"v1\""), ("Last-Modified", lastModified), ("Cache-Control", "no-cache")])
        let request = RuleFixtures.request([("If-None-Match", "\"client\""), ("Accept", "application/json")])
        guard case .revalidate(let conditional) = rules.evaluate(request: request, stored: stored, now: t0) else {
            Issue.record("expected revalidation")
            return
        }
        #expect(conditional.headerFields[values: .ifNoneMatch] == ["\"v1\""])
        #expect(conditional.headerFields[values: .ifModifiedSince] == [lastModified])
        #expect(conditional.headerFields[.accept] == "application/json")
        #expect(conditional.path == request.path)
    }

    @Test func revalidationWithoutValidatorsIsTheOriginalRequest() {
        let stored = RuleFixtures.stored([("Cache-Control", "no-cache")])
        let request = RuleFixtures.request()
        #expect(rules.evaluate(request: request, stored: stored, now: t0) == .revalidate(request))
    }

    @Test func invalidLastModifiedIsNotSentAsValidator() {
        let stored = RuleFixtures.stored([("Last-Modified", "yesterday")])
        let conditional = rules.conditionalRequest(for: RuleFixtures.request(), stored: stored)
        #expect(!conditional.headerFields.contains(.ifModifiedSince))
    }

    @Test(arguments: [HTTPRequest.Method.post, .head, .put])
    func onlyGetIsServed(method: HTTPRequest.Method) {
        let stored = RuleFixtures.stored([("Cache-Control", "max-age=60")])
        let request = RuleFixtures.request(method: method)
        #expect(rules.evaluate(request: request, stored: stored, now: t0) == .unusable(.methodNotCacheable))
    }

    @Test func oneRangeIsAnsweredFromAFreshCompleteResponse() {
        let stored = RuleFixtures.stored([("Cache-Control", "max-age=60")])
        let request = RuleFixtures.request([("Range", "bytes=0-10")])
        #expect(rules.evaluate(request: request, stored: stored, now: t0) == .fresh(age: 0))
    }

    @Test(arguments: ["bytes=0-1,5-6", "bytes=5-2", "pages=1-2"])
    func severalOrMalformedRangesBypass(range: String) {
        let stored = RuleFixtures.stored([("Cache-Control", "max-age=60")])
        let request = RuleFixtures.request([("Range", range)])
        #expect(rules.evaluate(request: request, stored: stored, now: t0) == .unusable(.rangeRequest))
    }

    @Test func varyMismatchIsUnusable() {
        let original = RuleFixtures.request([("Accept-Language", "en")])
        let stored = RuleFixtures.stored([("Cache-Control", "max-age=60"), ("Vary", "Accept-Language")], request: original)
        let other = RuleFixtures.request([("Accept-Language", "fr")])
        #expect(rules.evaluate(request: other, stored: stored, now: t0) == .unusable(.varyMismatch))
        #expect(DecisionKind(rules.evaluate(request: original, stored: stored, now: t0)) == .fresh)
    }

    @Test func selectionDisagreeingWithStoredVaryIsNeverServed() {
        // A hand-built entry whose selection forgets the Vary header.
        let response = RuleFixtures.response([("Cache-Control", "max-age=60"), ("Vary", "Accept-Language")])
        let stored = StoredResponse(response: response, requestTime: t0, responseTime: t0, varySelection: .none)
        #expect(rules.evaluate(request: RuleFixtures.request(), stored: stored, now: t0) == .unusable(.varyMismatch))
    }

    @Test func selectVariantPicksTheMostRecentMatch() {
        let english = RuleFixtures.request([("Accept-Language", "en")])
        let french = RuleFixtures.request([("Accept-Language", "fr")])
        let vary = [("Cache-Control", "max-age=60"), ("Vary", "accept-language")]
        let variants = [
            RuleFixtures.stored(vary, request: english, receivedAt: t0),
            RuleFixtures.stored(vary, request: french, receivedAt: t0),
            RuleFixtures.stored(vary, request: english, receivedAt: t0.addingTimeInterval(5)),
        ]
        #expect(rules.selectVariant(for: english, among: variants) == 2)
        #expect(rules.selectVariant(for: french, among: variants) == 1)
        #expect(rules.selectVariant(for: RuleFixtures.request(), among: variants) == nil)
    }

    @Test func decisionKnowsWhetherItServesTheStoredResponse() {
        #expect(CacheDecision.fresh(age: 0).servesStoredResponse)
        #expect(CacheDecision.staleAcceptable(age: 1, staleness: 1).servesStoredResponse)
        #expect(!CacheDecision.revalidate(RuleFixtures.request()).servesStoredResponse)
        #expect(!CacheDecision.onlyIfCachedMiss.servesStoredResponse)
        #expect(!CacheDecision.unusable(.varyMismatch).servesStoredResponse)
    }
}
