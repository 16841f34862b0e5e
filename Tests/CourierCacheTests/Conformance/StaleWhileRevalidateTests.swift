import Courier
import CourierCache
import CourierTesting
import Testing

/// RFC 5861 §3: inside the `stale-while-revalidate` window the stored response is served at once and
/// revalidated in the background; past the window it is not served.
@Suite struct StaleWhileRevalidateTests {
    @Test(arguments: StoreLife.allCases)
    func insideTheWindowTheStoredResponseServesAndIsRefreshed(life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        countingRoute(fixture.server, headers: [MockHeader("Cache-Control", "max-age=10, stale-while-revalidate=60")])
        _ = try await fixture.client.send(Feed(), cachePolicy: .followHTTP)
        fixture.clock.advance(by: 30)

        let later = try await fixture.after(life)
        let stale = try await later.client.response(for: Feed(), cachePolicy: .followHTTP)
        #expect(stale.source == .stale)
        #expect(stale.value["n"]?.int == 1)
        await later.client.waitForBackgroundWork()
        #expect(fixture.server.requestCount("/feed") == 2, "one revalidation in the background")
        let refreshed = try await later.client.response(for: Feed(), cachePolicy: .followHTTP)
        #expect(refreshed.source == .cache)
        #expect(refreshed.value["n"]?.int == 2)
    }

    @Test(arguments: StoreLife.allCases)
    func pastTheWindowTheStoredResponseIsNotServed(life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        countingRoute(fixture.server, headers: [MockHeader("Cache-Control", "max-age=10, stale-while-revalidate=60")])
        _ = try await fixture.client.send(Feed(), cachePolicy: .followHTTP)
        fixture.clock.advance(by: 71)

        let later = try await fixture.after(life)
        let response = try await later.client.response(for: Feed(), cachePolicy: .followHTTP)
        #expect(response.source == .network)
        #expect(response.value["n"]?.int == 2)
    }
}
