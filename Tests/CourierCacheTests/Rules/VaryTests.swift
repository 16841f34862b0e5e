import CourierCache
import HTTPTypes
import Testing

@Suite struct VaryTests {
    let rules = CacheRules()

    private func selection(vary: [String], request: [(String, String)]) throws -> VarySelection {
        let response = RuleFixtures.response(vary.map { ("Vary", $0) })
        return try #require(rules.varySelection(response: response, request: RuleFixtures.request(request)))
    }

    @Test func namesAreCaseInsensitiveAcrossSeveralFieldsAndLists() throws {
        let selection = try selection(vary: ["Accept-Language, ACCEPT", "accept-encoding"],
                                      request: [("accept-language", "en"), ("Accept", "text/html"), ("Accept-Encoding", "gzip")])
        #expect(selection.names == ["accept", "accept-encoding", "accept-language"])
        #expect(selection.values == ["accept": "text/html", "accept-encoding": "gzip", "accept-language": "en"])
    }

    @Test func valuesAreNormalised() throws {
        let selection = try selection(vary: ["Accept-Encoding"], request: [("Accept-Encoding", "  gzip,deflate ,   br  ")])
        #expect(selection.values["accept-encoding"] == "gzip, deflate, br")
        #expect(rules.varyMatches(selection, request: RuleFixtures.request([("Accept-Encoding", "gzip, deflate, br")])))
        #expect(rules.varyMatches(selection, request: RuleFixtures.request([("Accept-Encoding", "gzip"), ("Accept-Encoding", "deflate,br")])))
        #expect(!rules.varyMatches(selection, request: RuleFixtures.request([("Accept-Encoding", "br, gzip, deflate")])))
    }

    @Test func innerWhitespaceIsCollapsed() throws {
        let selection = try selection(vary: ["User-Agent"], request: [("User-Agent", "Courier   1.0\t(Linux)")])
        #expect(rules.varyMatches(selection, request: RuleFixtures.request([("User-Agent", "Courier 1.0 (Linux)")])))
    }

    @Test(arguments: [
        ([("Accept-Language", "en")], true),
        ([("accept-language", "en")], true),
        ([("Accept-Language", "fr")], false),
        ([("Accept-Language", "EN")], true), // language ranges are case-insensitive
        ([("Accept-Language", "en, fr")], false),
        ([], false),
    ])
    func matchingByValue(request: [(String, String)], expected: Bool) throws {
        let selection = try selection(vary: ["Accept-Language"], request: [("Accept-Language", "en")])
        #expect(rules.varyMatches(selection, request: RuleFixtures.request(request)) == expected)
    }

    @Test(arguments: ["FR, en-us", "fr,en-US", "en-us, fr", "fr", "en-US;q=0.8, fr"])
    func acceptLanguageIgnoresOrderAndCase(other: String) throws {
        let selection = try selection(vary: ["Accept-Language"], request: [("Accept-Language", "en-US, fr")])
        let expected = ["FR, en-us", "fr,en-US", "en-us, fr"].contains(other)
        #expect(rules.varyMatches(selection, request: RuleFixtures.request([("Accept-Language", other)])) == expected)
    }

    /// A response in the language the request prefers most answers it, whatever the stored request's text.
    @Test(arguments: [
        ("en", true), ("EN", true), ("fr;q=0.9, en", true), ("de;q=0.1, en;q=0.5", true), ("*, en;q=0.5", true),
        ("en;q=0.5, fr", false), ("fr, en", false), ("en;q=0", false), ("en-US", false), ("en;q=abc", false),
        ("fr", false),
    ])
    func acceptLanguageMatchesThePreferredContentLanguage(other: String, expected: Bool) {
        let request = RuleFixtures.request([("Accept-Language", "de")])
        let stored = RuleFixtures.stored([("Vary", "Accept-Language"), ("Content-Language", "en")], request: request)
        #expect(rules.varyMatches(stored, request: RuleFixtures.request([("Accept-Language", other)])) == expected)
        #expect(rules.selectVariant(for: RuleFixtures.request([("Accept-Language", other)]), among: [stored]) == (expected ? 0 : nil))
    }

    @Test(arguments: ["en, fr", ""])
    func aContentLanguageOtherThanOneTagMatchesByTextOnly(contentLanguage: String) {
        let request = RuleFixtures.request([("Accept-Language", "de")])
        let stored = RuleFixtures.stored([("Vary", "Accept-Language"), ("Content-Language", contentLanguage)], request: request)
        #expect(!rules.varyMatches(stored, request: RuleFixtures.request([("Accept-Language", "en")])))
        #expect(rules.varyMatches(stored, request: request))
    }

    @Test(arguments: [
        ("text/html;q=0.9 ,application/json", true), ("text/html ;  q=0.9, application/json", true),
        ("text/html; q=0.9", false), ("text/html; q = 0.9, application/json", false),
    ])
    func whitespaceAroundParametersIsInsignificant(other: String, expected: Bool) throws {
        let selection = try selection(vary: ["Accept"], request: [("Accept", "text/html; q=0.9,  application/json")])
        #expect(rules.varyMatches(selection, request: RuleFixtures.request([("Accept", other)])) == expected)
    }

    @Test func whitespaceInsideQuotedStringsCounts() throws {
        let selection = try selection(vary: ["X-Profile"], request: [("X-Profile", "a; name=\"x  y\"")])
        #expect(rules.varyMatches(selection, request: RuleFixtures.request([("X-Profile", "a;name=\"x  y\"")])))
        #expect(!rules.varyMatches(selection, request: RuleFixtures.request([("X-Profile", "a; name=\"x y\"")])))
    }

    @Test func missingMatchesMissingOnly() throws {
        let selection = try selection(vary: ["Accept-Language"], request: [])
        #expect(selection.values.isEmpty)
        #expect(rules.varyMatches(selection, request: RuleFixtures.request()))
        #expect(!rules.varyMatches(selection, request: RuleFixtures.request([("Accept-Language", "en")])))
        #expect(!rules.varyMatches(selection, request: RuleFixtures.request([("Accept-Language", "")])))
    }

    @Test func noVaryMatchesEverything() throws {
        let selection = try selection(vary: [], request: [("Accept", "x")])
        #expect(selection == .none)
        #expect(rules.varyMatches(selection, request: RuleFixtures.request([("Accept", "y")])))
    }

    @Test(arguments: ["*", "Accept, *", " * "])
    func varyStarHasNoSelection(vary: String) {
        let response = RuleFixtures.response([("Vary", vary)])
        #expect(rules.varySelection(response: response, request: RuleFixtures.request()) == nil)
    }

    @Test func canonicalKeyDistinguishesAbsentFromEmpty() throws {
        let absent = try selection(vary: ["Accept"], request: [])
        let empty = try selection(vary: ["Accept"], request: [("Accept", "")])
        #expect(absent.canonicalKey == "accept")
        #expect(empty.canonicalKey == "accept=")
        #expect(absent != empty)
        #expect(VarySelection.none.canonicalKey.isEmpty)
    }
}
