import CourierCache
import Foundation
import HTTPTypes
import Testing

@Suite struct InvalidationTests {
    let rules = CacheRules()

    @Test(arguments: [
        (HTTPRequest.Method.post, 200, true), (.put, 204, true), (.patch, 200, true), (.delete, 202, true),
        (.post, 303, true), (.post, 400, false), (.delete, 500, false), (.get, 200, false), (.head, 200, false),
        (.options, 200, false), (.trace, 200, false),
    ])
    func unsafeMethodsWithNonErrorStatusInvalidate(method: HTTPRequest.Method, status: Int, expected: Bool) {
        #expect(rules.invalidates(method: method, status: .init(code: status)) == expected)
    }

    @Test func unknownMethodsAreUnsafe() throws {
        let purge = try #require(HTTPRequest.Method("PURGE"))
        #expect(rules.invalidates(method: purge, status: .ok))
    }

    @Test func targetsIncludeSameOriginLocationAndContentLocation() throws {
        let request = RuleFixtures.request(method: .post, path: "/items?page=1")
        let response = RuleFixtures.response([
            ("Location", "/items/42"), ("Content-Location", "https://API.example.com:443/items/42/view"),
        ], status: 201)
        let targets = rules.invalidationTargets(request: request, response: response).map(\.absoluteString)
        #expect(targets == [
            "https://api.example.com/items?page=1", "https://api.example.com/items/42",
            "https://API.example.com:443/items/42/view",
        ])
    }

    @Test(arguments: ["https://evil.example.com/items/1", "http://api.example.com/items/1",
                      "https://api.example.com:8443/items/1", "::not a url::"])
    func otherOriginsAndGarbageAreIgnored(location: String) {
        let request = RuleFixtures.request(method: .put)
        let response = RuleFixtures.response([("Location", location)])
        #expect(rules.invalidationTargets(request: request, response: response).count == 1)
    }

    @Test func safeOrFailedRequestsInvalidateNothing() {
        #expect(rules.invalidationTargets(request: RuleFixtures.request(), response: RuleFixtures.response()).isEmpty)
        let failed = RuleFixtures.response(status: 500)
        #expect(rules.invalidationTargets(request: RuleFixtures.request(method: .post), response: failed).isEmpty)
    }
}
