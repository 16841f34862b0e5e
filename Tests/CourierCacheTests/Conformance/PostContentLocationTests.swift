import Courier
import CourierCache
import CourierTesting
import HTTPTypes
import Testing

/// RFC 9110 §9.3.3: a POST response with explicit freshness and a `Content-Location` equal to the
/// POST's URL is a representation of that resource, and may answer a later GET of it.
@Suite struct PostContentLocationTests {
    /// `POST /feed` answered with JSON.
    struct PostFeed: Endpoint {
        typealias Response = JSON
        var method: HTTPRequest.Method { .post }
        var path: EndpointPath { "/feed" }
        var parameters: Parameters { ["text": "hi"] }
    }

    static let cases: [(headers: [MockHeader], answersGET: Bool)] = [
        ([MockHeader("Cache-Control", "max-age=600"), MockHeader("Content-Location", "/feed")], true),
        ([MockHeader("Expires", "Thu, 01 Jan 2099 08:49:37 GMT"), MockHeader("Content-Location", "/feed")], true),
        ([MockHeader("Cache-Control", "max-age=600"), MockHeader("Content-Location", "/feed/1")], false),
        ([MockHeader("Content-Location", "/feed")], false),
        ([MockHeader("Cache-Control", "max-age=600, no-store"), MockHeader("Content-Location", "/feed")], false),
    ]

    @Test(arguments: cases, StoreLife.allCases)
    func aPostNamingItsOwnURLAnswersTheNextGET(post: (headers: [MockHeader], answersGET: Bool), life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        fixture.server.route("POST", "/feed", respond: .json(#"{"n":0}"#, headers: post.headers))
        countingRoute(fixture.server, headers: [MockHeader("Cache-Control", "max-age=600")])
        let posted = try await fixture.client.response(for: PostFeed(), cachePolicy: .followHTTP)
        #expect(posted.value["n"]?.int == 0)

        let later = try await fixture.after(life)
        let fetched = try await later.client.response(for: Feed(), cachePolicy: .followHTTP)
        #expect(fetched.source == (post.answersGET ? .cache : .network))
        #expect(fetched.value["n"]?.int == (post.answersGET ? 0 : 1))
    }

}
