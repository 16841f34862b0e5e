import Courier
import CourierCache
import Foundation
import HTTPTypes
import Testing

/// Random and hostile header values never trap and never make an uncacheable response servable.
@Suite struct MalformedHeaderTests {
    let rules = CacheRules()

    static let hostile: [String] = [
        "", " ", ",", "\"", "\\", "=", "==", "\"\\\"", "max-age=\"", "max-age=1e9", "max-age=٣", "max-age=６０",
        "max-age=18446744073709551616", "stale-if-error=99999999999999999999", "Sun, 06 Nov", "0", "-0",
        "🙂", "\u{7F}", "no-store\u{0}", String(repeating: "a,", count: 2000), String(repeating: "\"", count: 101),
    ]

    @Test(arguments: hostile)
    func hostileValuesEverywhere(value: String) {
        let names = ["Cache-Control", "Expires", "Date", "Age", "Last-Modified", "Vary", "ETag", "Pragma", "Location"]
        let headers = names.map { ($0, value) }
        let request = RuleFixtures.request(headers)
        let response = RuleFixtures.response(headers, status: 500)
        _ = rules.isStorable(request: request, response: response)
        _ = rules.varySelection(response: response, request: request)
        _ = rules.invalidationTargets(request: RuleFixtures.request(headers, method: .post), response: response)
        _ = rules.merge(stored: response.headerFields, notModified: request.headerFields)
        let stored = StoredResponse(response: response, requestTime: RuleFixtures.t0, responseTime: RuleFixtures.t0,
                                    varySelection: .none)
        _ = rules.canServeStaleOnError(stored: stored, now: .distantFuture, requestDirectives: CacheControl(values: [value]),
                                       extraAllowance: .infinity)
        _ = rules.servedResponse(for: stored, now: .distantFuture)
        let decision = rules.evaluate(request: request, stored: stored, now: RuleFixtures.t0)
        #expect(DecisionKind(decision) != .fresh)
    }

    @Test(arguments: hostile)
    func hostileExpiresIsNeverFresh(value: String) {
        let stored = RuleFixtures.stored([("Expires", value)])
        #expect(!rules.isFresh(stored, now: RuleFixtures.t0))
    }

    @Test(arguments: hostile)
    func hostileMaxAgeIsNeverFresh(value: String) {
        let stored = RuleFixtures.stored([("Cache-Control", "max-age=" + value)])
        let freshFor = rules.freshnessLifetime(of: stored.response, responseTime: stored.responseTime)
        #expect(freshFor == 0 || value.allSatisfy { $0.isASCII && $0.isNumber })
    }

    @Test func randomBytesNeverTrap() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let length = Int.random(in: 0..<64, using: &generator)
            let scalars = (0..<length).map { _ in Character(Unicode.Scalar(UInt8.random(in: 0...127, using: &generator))) }
            let value = String(scalars)
            _ = HTTPDate.parse(value)
            _ = CacheControl(values: [value])
            let stored = RuleFixtures.stored([("Cache-Control", value), ("Expires", value), ("Age", value), ("Vary", value)])
            _ = rules.evaluate(request: RuleFixtures.request([("Cache-Control", value)]), stored: stored, now: RuleFixtures.t0)
        }
    }
}
