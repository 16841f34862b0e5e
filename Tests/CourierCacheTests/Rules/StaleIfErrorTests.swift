import CourierCache
import Foundation
import Testing

@Suite struct StaleIfErrorTests {
    let rules = CacheRules()

    /// Response Cache-Control × request Cache-Control × age × app allowance → may serve on error.
    @Test(arguments: [
        ("max-age=60", "", 30.0, nil as Double?, true),           // still fresh
        ("max-age=60", "", 61, nil, false),                       // stale, no allowance
        ("max-age=60, stale-if-error=100", "", 160, nil, true),
        ("max-age=60, stale-if-error=100", "", 161, nil, false),
        ("max-age=60", "stale-if-error=50", 110, nil, true),
        ("max-age=60", "", 1000, 3600, true),                     // app offline allowance
        ("max-age=60", "", 5000, 3600, false),
        ("max-age=60, must-revalidate", "", 30, nil, true),       // fresh is fine
        ("max-age=60, must-revalidate, stale-if-error=100", "", 61, 3600, false),
        ("no-cache, stale-if-error=100", "", 0, 3600, false),
        ("max-age=60, stale-if-error=100", "no-store", 10, 3600, false),
        ("max-age=60, stale-if-error=100", "no-cache", 100, nil, true),
    ])
    func matrix(response: String, request: String, age: TimeInterval, allowance: TimeInterval?, expected: Bool) {
        let stored = RuleFixtures.stored([("Cache-Control", response)])
        let requestDirectives = CacheControl(values: [request])
        let result = rules.canServeStaleOnError(
            stored: stored, now: RuleFixtures.t0.addingTimeInterval(age), requestDirectives: requestDirectives,
            extraAllowance: allowance)
        #expect(result == expected)
    }
}
