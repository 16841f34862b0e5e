import CourierCache
import Foundation
import HTTPTypes
import Testing

/// RFC 9110 §9.3.3 as a value: which POST responses may answer a later GET.
@Suite struct PostStorabilityTests {
    let rules = CacheRules()

    @Test(arguments: [
        ("https://API.example.com:443/items?page=1", true), ("/items?page=1", true), ("items?page=1", true),
        ("https://other.example.com/items?page=1", false), ("/items?page=2", false), ("/items", false),
    ])
    func contentLocationMustNameTheRequestURL(location: String, expected: Bool) throws {
        let url = try #require(URL(string: "https://api.example.com/items?page=1"))
        let response = RuleFixtures.response([("Cache-Control", "max-age=60"), ("Content-Location", location)])
        #expect(rules.isStorableForGET(afterPost: RuleFixtures.request(method: .post), response: response, url: url) == expected)
    }

    @Test func onlyAPostWithExplicitFreshnessAndACacheableStatus() throws {
        let url = try #require(URL(string: "https://api.example.com/items?page=1"))
        let fresh = RuleFixtures.response([("Cache-Control", "max-age=60"), ("Content-Location", "/items?page=1")])
        #expect(!rules.isStorableForGET(afterPost: RuleFixtures.request(method: .put), response: fresh, url: url))
        let created = RuleFixtures.response([("Cache-Control", "max-age=60"), ("Content-Location", "/items?page=1")], status: 201)
        #expect(!rules.isStorableForGET(afterPost: RuleFixtures.request(method: .post), response: created, url: url))
        let heuristic = RuleFixtures.response([("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT"), ("Content-Location", "/items?page=1")])
        #expect(!rules.isStorableForGET(afterPost: RuleFixtures.request(method: .post), response: heuristic, url: url))
    }
}
