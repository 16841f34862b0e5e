import CourierCache
import Foundation
import HTTPTypes
import Testing

/// RFC 9111 §4.3.1, §4.3.4 as values: a request no stored variant answers lists their entity tags,
/// and a `304` names the one to serve.
@Suite struct OtherVariantsTests {
    let rules = CacheRules()

    private func variant(_ language: String, etag: String?, status: Int = 200, extra: [(String, String)] = [], at offset: TimeInterval = 0) -> StoredResponse {
        let headers = [("Vary", "Accept-Language")] + (etag.map { [("ETag", $0)] } ?? []) + extra
        return RuleFixtures.stored(
            headers, status: status, request: RuleFixtures.request([("Accept-Language", language)]),
            receivedAt: RuleFixtures.t0.addingTimeInterval(offset))
    }

    private var german: HTTPRequest { RuleFixtures.request([("Accept-Language", "de")]) }

    @Test func theUnselectedVariantsTagsAreListedOnce() throws {
        let variants = [variant("en", etag: "\"en\""), variant("fr", etag: "W/\"fr\""), variant("it", etag: "\"en\""), variant("es", etag: nil)]
        let conditional = try #require(rules.conditionalRequest(for: german, unselected: variants))
        #expect(conditional.headerFields[values: .ifNoneMatch] == ["\"en\", W/\"fr\""])
    }

    @Test(arguments: [
        [("ETag", "\"x\", \"y\"")], [("ETag", "x")], [("Cache-Control", "no-store"), ("ETag", "\"x\"")],
        [("ETag", "\"x\""), ("Content-Range", "bytes 0-1/10")],
    ])
    func variantsWithoutAUsableTagAreNotListed(headers: [(String, String)]) {
        let status = headers.contains { $0.0 == "Content-Range" } ? 206 : 200
        let stored = RuleFixtures.stored([("Vary", "Accept-Language")] + headers, status: status, request: RuleFixtures.request([("Accept-Language", "en")]))
        #expect(rules.conditionalRequest(for: german, unselected: [stored]) == nil)
    }

    @Test(arguments: [("If-None-Match", "\"mine\""), ("If-Modified-Since", "Sun, 06 Nov 1994 08:49:37 GMT"), ("Cache-Control", "no-store")])
    func aRequestWithItsOwnConditionsIsLeftAlone(field: String, value: String) {
        let request = RuleFixtures.request([("Accept-Language", "de"), (field, value)])
        #expect(rules.conditionalRequest(for: request, unselected: [variant("en", etag: "\"en\"")]) == nil)
    }

    @Test func aNotModifiedNamesTheMostRecentVariantWithItsTagComparedWeakly() {
        let variants = [variant("en", etag: "\"a\""), variant("fr", etag: "W/\"a\"", at: 10), variant("it", etag: "\"b\"", at: 20)]
        #expect(rules.variantNamed(by: RuleFixtures.response([("ETag", "\"a\"")], status: 304), among: variants) == 1)
        #expect(rules.variantNamed(by: RuleFixtures.response([("ETag", "\"b\"")], status: 304), among: variants) == 2)
        #expect(rules.variantNamed(by: RuleFixtures.response([("ETag", "\"c\"")], status: 304), among: variants) == nil)
        #expect(rules.variantNamed(by: RuleFixtures.response([], status: 304), among: variants) == nil)
    }
}
