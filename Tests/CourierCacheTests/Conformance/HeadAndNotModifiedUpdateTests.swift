import Courier
import CourierCache
import CourierTesting
import HTTPTypes
import Testing

/// RFC 9111 §4.3.4, §4.3.5: a `304` and a `200` to `HEAD` update the stored GET response's header
/// fields (not its `Content-Length`); a `410`, or a `HEAD` describing another representation,
/// removes it.
@Suite struct HeadAndNotModifiedUpdateTests {
    /// `HEAD /feed`, sent through the cache.
    struct HeadFeed: Endpoint {
        typealias Response = Empty
        var method: HTTPRequest.Method { .head }
        var path: EndpointPath { "/feed" }
    }

    static let stored = [MockHeader("Cache-Control", "max-age=10"), MockHeader("ETag", "\"v1\""), MockHeader("X-Version", "1")]

    @Test(arguments: StoreLife.allCases)
    func aHeadWithTheSameValidatorRefreshesTheStoredResponse(life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        countingRoute(fixture.server, headers: Self.stored)
        fixture.server.route("HEAD", "/feed", respond: .json(#"{"n":1}"#, headers: [
            MockHeader("Cache-Control", "max-age=600"), MockHeader("ETag", "\"v1\""), MockHeader("X-Version", "2"),
        ]))
        _ = try await fixture.client.send(Feed(), cachePolicy: .followHTTP)
        fixture.clock.advance(by: 30)

        let later = try await fixture.after(life)
        _ = try await later.client.send(HeadFeed(), cachePolicy: .followHTTP)
        let cached = try await later.client.response(for: Feed(), cachePolicy: .followHTTP)
        #expect(cached.source == .cache, "the HEAD made the stored response fresh again")
        #expect(cached.value["n"]?.int == 1)
        #expect(cached.head.headerFields[try #require(HTTPField.Name("X-Version"))] == "2")
        #expect(fixture.server.requestCount("/feed") == 2)
    }

    static let invalidating: [MockResponse] = [
        .status(410, headers: [MockHeader("Cache-Control", "max-age=600")]),
        .json(#"{"n":1}"#, headers: [MockHeader("Cache-Control", "max-age=600"), MockHeader("ETag", "\"v2\"")]),
        .json(#"{"n":12345}"#, headers: [MockHeader("Cache-Control", "max-age=600"), MockHeader("ETag", "\"v1\"")]),
    ]

    @Test(arguments: invalidating, StoreLife.allCases)
    func aHeadThatContradictsTheStoredResponseRemovesIt(head: MockResponse, life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        countingRoute(fixture.server, headers: [MockHeader("Cache-Control", "max-age=600"), MockHeader("ETag", "\"v1\"")])
        fixture.server.route("HEAD", "/feed", respond: head)
        _ = try await fixture.client.send(Feed(), cachePolicy: .followHTTP)

        let later = try await fixture.after(life)
        _ = try? await later.client.send(HeadFeed(), cachePolicy: .followHTTP)
        let second = try await later.client.response(for: Feed(), cachePolicy: .followHTTP)
        #expect(second.source == .network)
        #expect(second.value["n"]?.int == 2)
    }

    @Test(arguments: StoreLife.allCases)
    func aNotModifiedUpdatesContentFieldsButNotContentLength(life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        fixture.server.route("GET", "/feed", script: [
            .json(#"{"n":1}"#, headers: Self.stored),
            .status(304, headers: [
                MockHeader("Cache-Control", "max-age=600"), MockHeader("ETag", "\"v1\""), MockHeader("X-Version", "2"),
                MockHeader("Content-Type", "application/vnd.feed+json"), MockHeader("Content-Encoding", "identity"),
                MockHeader("Content-Length", "0"),
            ]),
        ])
        _ = try await fixture.client.send(Feed(), cachePolicy: .followHTTP)
        fixture.clock.advance(by: 30)

        let later = try await fixture.after(life)
        let revalidated = try await later.client.response(for: Feed(), cachePolicy: .followHTTP)
        #expect(revalidated.source == .revalidated)
        let cached = try await later.client.response(for: Feed(), cachePolicy: .followHTTP)
        #expect(cached.source == .cache)
        for response in [revalidated, cached] {
            #expect(response.value["n"]?.int == 1)
            #expect(response.head.headerFields[.contentType] == "application/vnd.feed+json")
            #expect(response.head.headerFields[.contentEncoding] == "identity")
            #expect(response.head.headerFields[.contentLength] == "7")
            #expect(response.head.headerFields[try #require(HTTPField.Name("X-Version"))] == "2")
        }
    }
}
