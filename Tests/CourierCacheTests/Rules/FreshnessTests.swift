import Courier
import CourierCache
import Foundation
import HTTPTypes
import Testing

@Suite struct FreshnessTests {
    let rules = CacheRules()
    let t0 = RuleFixtures.t0

    private func lifetime(_ headers: [(String, String)], status: Int = 200) -> TimeInterval {
        rules.freshnessLifetime(of: RuleFixtures.response(headers, status: status), responseTime: t0)
    }

    private func http(_ offset: TimeInterval) -> String { HTTPDate.string(from: t0.addingTimeInterval(offset)) }

    @Test func maxAgeWinsOverExpires() {
        #expect(lifetime([("Cache-Control", "max-age=60"), ("Date", http(0)), ("Expires", http(3600))]) == 60)
    }

    /// RFC 9111 §4.2.1: of conflicting `max-age` values the first counts, in either order.
    @Test(arguments: [("max-age=10, max-age=3600", 10.0, false), ("max-age=3600, max-age=10", 3600, true)])
    func conflictingMaxAgesUseTheFirst(cacheControl: String, lifetime expected: TimeInterval, freshAfterAMinute: Bool) {
        #expect(lifetime([("Cache-Control", cacheControl), ("Date", http(0))]) == expected)
        let entry = RuleFixtures.stored([("Cache-Control", cacheControl)], receivedAt: t0)
        #expect(rules.isFresh(entry, now: t0.addingTimeInterval(60)) == freshAfterAMinute)
    }

    @Test func expiresMinusDate() {
        #expect(lifetime([("Date", http(0)), ("Expires", http(3600))]) == 3600)
    }

    @Test func expiresWithoutDateUsesResponseTime() {
        #expect(lifetime([("Expires", http(100))]) == 100)
    }

    @Test(arguments: ["0", "-1", "garbage", "", "Sun, 32 Nov 1994 08:49:37 GMT"])
    func invalidExpiresMeansExpired(expires: String) {
        #expect(lifetime([("Date", http(0)), ("Expires", expires), ("Last-Modified", http(-86_400 * 30))]) == 0)
    }

    @Test func expiresInThePastIsZero() {
        #expect(lifetime([("Date", http(0)), ("Expires", http(-60))]) == 0)
    }

    @Test func heuristicIsTenPercentOfLastModifiedAge() {
        #expect(lifetime([("Date", http(0)), ("Last-Modified", http(-1000))]) == 100)
    }

    @Test func heuristicIsCapped() {
        #expect(lifetime([("Date", http(0)), ("Last-Modified", http(-86_400 * 365))]) == 86_400)
        let custom = CacheRules(heuristicFraction: 0.5, maximumHeuristicLifetime: 60)
        let response = RuleFixtures.response([("Date", http(0)), ("Last-Modified", http(-100))])
        #expect(custom.freshnessLifetime(of: response, responseTime: t0) == 50)
    }

    @Test(arguments: [(200, 100.0), (404, 100), (410, 100), (302, 0), (500, 0), (201, 0)])
    func heuristicOnlyForDefaultCacheableStatuses(status: Int, expected: TimeInterval) {
        #expect(lifetime([("Date", http(0)), ("Last-Modified", http(-1000))], status: status) == expected)
    }

    @Test func publicAllowsHeuristicForOtherStatuses() {
        #expect(lifetime([("Cache-Control", "public"), ("Date", http(0)), ("Last-Modified", http(-1000))], status: 302) == 100)
    }

    @Test func lastModifiedInTheFutureGivesZero() {
        #expect(lifetime([("Date", http(0)), ("Last-Modified", http(500))]) == 0)
    }

    @Test func noInformationMeansZero() {
        #expect(lifetime([]) == 0)
    }

    // MARK: Age (RFC 9111 §4.2.3)

    private func stored(_ headers: [(String, String)], requestTime: Date, responseTime: Date) -> StoredResponse {
        StoredResponse(
            response: RuleFixtures.response(headers), requestTime: requestTime, responseTime: responseTime,
            varySelection: .none)
    }

    @Test func residentTimeOnly() {
        let entry = stored([("Date", http(0))], requestTime: t0, responseTime: t0)
        #expect(rules.currentAge(of: entry, now: t0.addingTimeInterval(42)) == 42)
    }

    @Test func apparentAgeFromDate() {
        // The origin dated the response 30 s before we received it.
        let entry = stored([("Date", http(-30))], requestTime: t0, responseTime: t0)
        #expect(rules.currentAge(of: entry, now: t0.addingTimeInterval(10)) == 40)
    }

    @Test func ageHeaderPlusResponseDelay() {
        let entry = stored([("Date", http(0)), ("Age", "100")], requestTime: t0.addingTimeInterval(-2), responseTime: t0)
        #expect(rules.currentAge(of: entry, now: t0.addingTimeInterval(5)) == 107)
    }

    @Test func largestOfApparentAndCorrectedAge() {
        let entry = stored([("Date", http(-500)), ("Age", "100")], requestTime: t0, responseTime: t0)
        #expect(rules.currentAge(of: entry, now: t0) == 500)
    }

    @Test func dateInTheFutureDoesNotMakeAgeNegative() {
        let entry = stored([("Date", http(3600))], requestTime: t0, responseTime: t0)
        #expect(rules.currentAge(of: entry, now: t0) == 0)
    }

    @Test(arguments: ["abc", "-7200", "7200.0", "1.5", "old, 0", "old, 7200", "7200;foo=bar", "+5", "0x10"])
    func anInvalidAgeIsIgnored(value: String) {
        let entry = stored([("Date", http(0)), ("Age", value), ("Cache-Control", "max-age=3600")], requestTime: t0, responseTime: t0)
        #expect(rules.currentAge(of: entry, now: t0.addingTimeInterval(1)) == 1)
        #expect(rules.isFresh(entry, now: t0.addingTimeInterval(1)))
    }

    @Test func anEmptyAgeLineIsIgnored() {
        let entry = stored([("Date", http(0)), ("Age", "")], requestTime: t0, responseTime: t0)
        #expect(rules.currentAge(of: entry, now: t0.addingTimeInterval(1)) == 1)
    }

    static let ageLines: [(lines: [String], age: TimeInterval)] = [(["0", "7200"], 0), (["7200", "0"], 7200), (["5, 7200"], 5)]

    @Test(arguments: ageLines)
    func theFirstAgeMemberCounts(ages: (lines: [String], age: TimeInterval)) {
        let expected = ages.age
        let entry = stored([("Date", http(0))] + ages.lines.map { ("Age", $0) }, requestTime: t0, responseTime: t0)
        #expect(rules.currentAge(of: entry, now: t0) == expected)
    }

    @Test func missingDateUsesResponseTime() {
        let entry = stored([], requestTime: t0, responseTime: t0)
        #expect(rules.currentAge(of: entry, now: t0.addingTimeInterval(3)) == 3)
    }

    @Test func clockGoingBackwardsDoesNotMakeAgeNegative() {
        let entry = stored([("Date", http(0))], requestTime: t0, responseTime: t0)
        #expect(rules.currentAge(of: entry, now: t0.addingTimeInterval(-100)) == 0)
    }

    @Test func servedResponseCarriesTheAge() {
        let entry = stored([("Date", http(0)), ("Age", "7")], requestTime: t0, responseTime: t0)
        let served = rules.servedResponse(for: entry, now: t0.addingTimeInterval(3.9))
        #expect(served.headerFields[values: .age] == ["10"])
    }
}
