import Courier
import CourierCache
import CourierTesting
import Foundation
import Testing

@Suite struct CachePolicyTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var policy: CachePolicy
        var cacheControl: String
        /// The sources of two calls in a row, and how many reached the server.
        var expectedSources: [ResponseSource]
        var expectedServerHits: Int
        var testDescription: String { "\(policy) × '\(cacheControl)'" }
    }

    static let matrix: [Case] = [
        Case(policy: .withoutCache, cacheControl: "max-age=60", expectedSources: [.network, .network], expectedServerHits: 2),
        Case(policy: .followHTTP, cacheControl: "max-age=60", expectedSources: [.network, .cache], expectedServerHits: 1),
        Case(policy: .followHTTP, cacheControl: "no-store", expectedSources: [.network, .network], expectedServerHits: 2),
        Case(policy: .followHTTP, cacheControl: "max-age=0", expectedSources: [.network, .network], expectedServerHits: 2),
        Case(policy: .followHTTP, cacheControl: "private, max-age=60", expectedSources: [.network, .cache], expectedServerHits: 1),
        Case(policy: .alwaysUseCache, cacheControl: "max-age=0", expectedSources: [.network, .cache], expectedServerHits: 1),
        Case(policy: .alwaysUseCache, cacheControl: "no-store", expectedSources: [.network, .network], expectedServerHits: 2),
        Case(policy: .networkOnly, cacheControl: "max-age=60", expectedSources: [.network, .network], expectedServerHits: 2),
        Case(policy: .networkFirst, cacheControl: "max-age=60", expectedSources: [.network, .network], expectedServerHits: 2),
        Case(policy: .useCacheAndRequest, cacheControl: "max-age=60", expectedSources: [.network, .network], expectedServerHits: 2),
    ]

    @Test(arguments: matrix)
    func policyAndCacheControl(_ testCase: Case) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        countingRoute(fixture.server, headers: [MockHeader("Cache-Control", testCase.cacheControl)])
        var sources: [ResponseSource] = []
        for _ in 0..<2 {
            sources.append(try await fixture.client.response(for: Feed(), cachePolicy: testCase.policy).source)
        }
        #expect(sources == testCase.expectedSources)
        #expect(fixture.server.requestCount("/feed") == testCase.expectedServerHits)
    }

    @Test func cacheOnlyNeverTouchesTheNetwork() async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        countingRoute(fixture.server, headers: [])
        let error = await #expect(throws: CourierError.self) { try await fixture.client.send(Feed(), cachePolicy: .cacheOnly) }
        #expect(error?.status == .gatewayTimeout)
        #expect(error?.detail.contains("504 from the cache") == true, "no server was asked: \(error?.detail ?? "")")
        #expect(fixture.server.requestCount("/feed") == 0)
        _ = try await fixture.client.send(Feed(), cachePolicy: .networkOnly)
        let cached = try await fixture.client.response(for: Feed(), cachePolicy: .cacheOnly)
        #expect(cached.value["n"]?.int == 1)
        #expect(fixture.server.requestCount("/feed") == 1)
    }

    @Test func onlyIfCachedAnswers504WithoutTheNetwork() async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        countingRoute(fixture.server, headers: [MockHeader("Cache-Control", "max-age=60")])
        let error = await #expect(throws: CourierError.self) {
            try await fixture.client.send(Feed(cachePolicy: .followHTTP, headers: [.cacheControl: "only-if-cached"]))
        }
        #expect(error?.status == .gatewayTimeout)
        #expect(fixture.server.requestCount("/feed") == 0)
    }

    @Test func expiredEntriesAreFetchedAgain() async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        countingRoute(fixture.server, headers: [MockHeader("Cache-Control", "max-age=60")])
        _ = try await fixture.client.send(Feed(), cachePolicy: .followHTTP)
        fixture.clock.advance(by: 61)
        let second = try await fixture.client.response(for: Feed(), cachePolicy: .followHTTP)
        #expect(second.source == .network)
        #expect(second.value["n"]?.int == 2)
    }

    @Test func a304KeepsTheBodyAndUpdatesTheHeaders() async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        fixture.server.route("GET", "/feed") { request in
            if request.header("If-None-Match") == "\"v1\"" {
                return MockResponse.status(304, headers: [MockHeader("ETag", "\"v1\""), MockHeader("Cache-Control", "max-age=60"), MockHeader("X-Revision", "2")])
            }
            return .json(#"{"n":1}"#, headers: [MockHeader("ETag", "\"v1\""), MockHeader("Cache-Control", "no-cache"), MockHeader("X-Revision", "1")])
        }
        _ = try await fixture.client.send(Feed(), cachePolicy: .followHTTP)
        let revalidated = try await fixture.client.response(for: Feed(), cachePolicy: .followHTTP)
        #expect(revalidated.source == .revalidated)
        #expect(revalidated.value["n"]?.int == 1)
        #expect(revalidated.head.headerFields[HTTPField.Name("X-Revision")!] == "2")
        #expect(fixture.server.lastRequest?.header("If-None-Match") == "\"v1\"")
        // The 304 made the entry fresh for 60 s.
        #expect(try await fixture.client.response(for: Feed(), cachePolicy: .followHTTP).source == .cache)
        #expect(fixture.server.requestCount("/feed") == 2)
    }

    @Test func varyKeepsOneEntryPerHeaderValue() async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        fixture.server.route("GET", "/feed") { request in
            .json(#"{"lang":"\#(request.header("Accept-Language") ?? "none")"}"#, headers: [MockHeader("Cache-Control", "max-age=60"), MockHeader("Vary", "accept-language")])
        }
        let english = Feed(headers: [.acceptLanguage: "en"])
        let french = Feed(headers: [.acceptLanguage: "fr"])
        #expect(try await fixture.client.send(english, cachePolicy: .followHTTP)["lang"]?.string == "en")
        #expect(try await fixture.client.send(french, cachePolicy: .followHTTP)["lang"]?.string == "fr")
        #expect(try await fixture.client.response(for: english, cachePolicy: .followHTTP).source == .cache)
        #expect(try await fixture.client.send(french, cachePolicy: .followHTTP)["lang"]?.string == "fr")
        #expect(fixture.server.requestCount("/feed") == 2)
    }

    /// Whatever the POST's own policy: `withoutCache` (the client's default) keeps its answer out of
    /// the cache, not the cache true to what it changed.
    @Test(arguments: [CachePolicy.followHTTP, .withoutCache, .networkOnly])
    func aSuccessfulPostInvalidatesTheURL(postPolicy: CachePolicy) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        countingRoute(fixture.server, headers: [MockHeader("Cache-Control", "max-age=60")])
        fixture.server.route("POST", "/feed", respond: .status(201))
        _ = try await fixture.client.send(Feed(), cachePolicy: .followHTTP)
        _ = try await fixture.client.send(PostToFeed(), cachePolicy: postPolicy)
        let after = try await fixture.client.response(for: Feed(), cachePolicy: .followHTTP)
        #expect(after.source == .network)
        #expect(after.value["n"]?.int == 2)
    }

    @Test func theQueryIsPartOfTheKey() async throws {
        struct Page: Endpoint {
            typealias Response = JSON
            var number: Int
            var path: EndpointPath { "/feed" }
            var query: Parameters { ["page": number] }
        }
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        fixture.server.route("GET", "/feed") { request in
            .json(#"{"page":\#(request.queryValue("page") ?? "0")}"#, headers: [MockHeader("Cache-Control", "max-age=60")])
        }
        #expect(try await fixture.client.send(Page(number: 1), cachePolicy: .followHTTP)["page"]?.int == 1)
        #expect(try await fixture.client.send(Page(number: 2), cachePolicy: .followHTTP)["page"]?.int == 2)
        #expect(try await fixture.client.send(Page(number: 1), cachePolicy: .followHTTP)["page"]?.int == 1)
        #expect(fixture.server.requestCount("/feed") == 2)
    }
}
