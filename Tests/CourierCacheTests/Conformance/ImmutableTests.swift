import Courier
import CourierCache
import CourierTesting
import Testing

/// RFC 8246: `immutable` spares revalidation only while fresh; a stale immutable response is
/// revalidated like any other, never served as is.
@Suite struct ImmutableTests {
    @Test(arguments: StoreLife.allCases)
    func aStaleImmutableResponseIsRevalidated(life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        fixture.server.route("GET", "/feed", script: [
            .json(#"{"n":1}"#, headers: [MockHeader("Cache-Control", "max-age=60, immutable"), MockHeader("ETag", "\"v1\"")]),
            .status(304, headers: [MockHeader("Cache-Control", "max-age=60, immutable"), MockHeader("ETag", "\"v1\"")]),
        ])
        _ = try await fixture.client.send(Feed(), cachePolicy: .followHTTP)
        fixture.clock.advance(by: 30)
        let later = try await fixture.after(life)
        #expect(try await later.client.response(for: Feed(), cachePolicy: .followHTTP).source == .cache, "fresh: no request")
        #expect(fixture.server.requestCount("/feed") == 1)

        fixture.clock.advance(by: 60)
        let revalidated = try await later.client.response(for: Feed(), cachePolicy: .followHTTP)
        #expect(revalidated.source == .revalidated)
        #expect(revalidated.value["n"]?.int == 1)
        #expect(fixture.server.requestCount("/feed") == 2)
        #expect(fixture.server.lastRequest?.header("If-None-Match") == "\"v1\"")
    }
}
