import CourierCache
import HTTPTypes
import Testing

/// RFC 9111 §3.4 as values: a stored part asks the origin only for the one run of bytes it lacks.
@Suite struct PartCompletionRulesTests {
    let rules = CacheRules()

    private func part(_ contentRange: String, etag: String = "\"v\"") -> StoredResponse {
        RuleFixtures.stored([("ETag", etag), ("Content-Range", contentRange), ("Cache-Control", "max-age=60")], status: 206)
    }

    private func completion(_ stored: StoredResponse, _ headers: [(String, String)], limit: Int = 1 << 20) -> HTTPRequest? {
        rules.completion(for: RuleFixtures.request(headers), among: [stored], limit: limit)?.request
    }

    @Test(arguments: [
        ("bytes 0-49/100", nil, "bytes=50-99"), ("bytes 50-99/100", nil, "bytes=0-49"), ("bytes 20-29/100", nil, nil),
        ("bytes 0-49/100", "bytes=40-79", "bytes=50-79"), ("bytes 0-49/100", "bytes=-60", "bytes=50-99"),
        ("bytes 0-49/100", "bytes=30-", "bytes=50-99"), ("bytes 0-49/100", "bytes=-10", nil), ("bytes 0-49/100", "bytes=50-99", nil),
        ("bytes 0-49/100", "bytes=0-9", nil), ("bytes 0-49/100", "bytes=0-1,60-70", nil),
    ] as [(String, String?, String?)])
    func onlyTheMissingRunIsAskedFor(held: String, range: String?, expected: String?) {
        let request = completion(part(held), range.map { [("Range", $0)] } ?? [])
        #expect(request?.headerFields[.range] == expected)
        #expect(request?.headerFields[.ifRange] == expected.map { _ in "\"v\"" })
    }

    @Test(arguments: ["W/\"v\"", "v", "\"a\", \"b\""])
    func aPartWithoutAStrongValidatorIsNotCompleted(etag: String) {
        #expect(completion(part("bytes 0-49/100", etag: etag), []) == nil)
    }

    @Test(arguments: [("If-None-Match", "\"v\""), ("If-Range", "\"v\""), ("Cache-Control", "no-store")])
    func aRequestWithItsOwnConditionsIsLeftAlone(field: String, value: String) {
        #expect(completion(part("bytes 0-49/100"), [(field, value)]) == nil)
    }

    @Test func aCompletionPastTheLimitIsNotAskedFor() {
        #expect(completion(part("bytes 0-49/100"), [], limit: 99) == nil)
        #expect(completion(part("bytes 0-49/100"), [], limit: 100) != nil)
    }
}
