import CourierCache
import HTTPTypes
import Testing

@Suite struct StorabilityTests {
    let rules = CacheRules()

    @Test(arguments: [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501])
    func defaultCacheableStatusesAreStorable(status: Int) {
        #expect(rules.isStorable(request: RuleFixtures.request(), response: RuleFixtures.response(status: status)))
    }

    @Test(arguments: [201, 202, 302, 303, 307, 400, 401, 403, 500, 502, 503])
    func otherStatusesNeedExplicitPermission(status: Int) {
        let request = RuleFixtures.request()
        #expect(!rules.isStorable(request: request, response: RuleFixtures.response(status: status)))
        for permission in [("Cache-Control", "max-age=60"), ("Cache-Control", "public"), ("Cache-Control", "private"),
                           ("Expires", "Sun, 06 Nov 2094 08:49:37 GMT")] {
            #expect(rules.isStorable(request: request, response: RuleFixtures.response([permission], status: status)))
        }
    }

    @Test(arguments: [100, 206, 304])
    func neverStorableStatusesForAPlainRequest(status: Int) {
        let response = RuleFixtures.response([("Cache-Control", "max-age=60, public")], status: status)
        #expect(!rules.isStorable(request: RuleFixtures.request(), response: response))
    }

    @Test(arguments: [(200, true), (404, true), (302, true), (299, false), (599, false), (206, false)])
    func mustUnderstandOverridesNoStoreOnlyForUnderstoodStatuses(status: Int, stored: Bool) {
        let response = RuleFixtures.response([("Cache-Control", "no-store, must-understand, max-age=60")], status: status)
        #expect(rules.isStorable(request: RuleFixtures.request(), response: response) == stored)
        let withoutNoStore = RuleFixtures.response([("Cache-Control", "must-understand, max-age=60")], status: status)
        #expect(rules.isStorable(request: RuleFixtures.request(), response: withoutNoStore) == stored)
    }

    @Test(arguments: [HTTPRequest.Method.post, .put, .patch, .delete, .head, .options])
    func onlyGetIsStorable(method: HTTPRequest.Method) {
        let response = RuleFixtures.response([("Cache-Control", "max-age=60")])
        #expect(!rules.isStorable(request: RuleFixtures.request(method: method), response: response))
    }

    @Test(arguments: ["no-store", "NO-STORE", "max-age=60, no-store", "public, no-store=\"x\""])
    func responseNoStoreIsNeverStored(value: String) {
        let response = RuleFixtures.response([("Cache-Control", value)])
        #expect(!rules.isStorable(request: RuleFixtures.request(), response: response))
    }

    @Test func requestNoStoreIsNeverStored() {
        let request = RuleFixtures.request([("Cache-Control", "no-store")])
        #expect(!rules.isStorable(request: request, response: RuleFixtures.response([("Cache-Control", "max-age=60")])))
    }

    @Test func noCacheResponsesAreStorableForRevalidation() {
        let response = RuleFixtures.response([("Cache-Control", "no-cache"), ("ETag", "\"a\"")])
        #expect(rules.isStorable(request: RuleFixtures.request(), response: response))
    }

    @Test func authorizationIsFineForAPrivateCache() {
        let request = RuleFixtures.request([("Authorization", "Bearer secret")])
        #expect(rules.isStorable(request: request, response: RuleFixtures.response([("Cache-Control", "max-age=60")])))
    }

    @Test(arguments: ["*", "Accept, *", "accept-encoding, *", "bad name", "\"quoted\""])
    func varyStarOrMalformedIsNotStorable(vary: String) {
        let response = RuleFixtures.response([("Cache-Control", "max-age=60"), ("Vary", vary)])
        #expect(!rules.isStorable(request: RuleFixtures.request(), response: response))
        #expect(rules.varySelection(response: response, request: RuleFixtures.request()) == nil)
    }

    @Test func aCompleteAnswerToARangeRequestIsStored() {
        let request = RuleFixtures.request([("Range", "bytes=0-1")])
        #expect(rules.isStorable(request: request, response: RuleFixtures.response()))
    }
}
