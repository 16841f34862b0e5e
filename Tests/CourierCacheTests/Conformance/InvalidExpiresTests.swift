import Courier
import CourierCache
import CourierTesting
import Testing

/// RFC 9111 §5.3: an `Expires` that is not exactly one HTTP-date makes the response stale. Every
/// invalid value below names a date in the future, so a lenient parser would serve it from cache.
@Suite struct InvalidExpiresTests {
    static let invalid: [[MockHeader]] = [
        [MockHeader("Expires", "Thu, 01 Jan 2099 8:49:37 GMT")],       // one-digit hour
        [MockHeader("Expires", "Thu, 01 Jan 45 08:49:37 GMT")],        // two-digit year in an IMF-fixdate
        [MockHeader("Expires", "Thu, 01-Jan-2099 08:49:37 GMT")],      // dashes in the date
        [MockHeader("Expires", "Thu, 01 Jan 2099 08:49:37 GMT"), MockHeader("Expires", "Fri, 02 Jan 2099 08:49:37 GMT")],
        [MockHeader("Expires", "Thu,  01 Jan 2099  08:49:37 GMT")],    // doubled spaces
        [MockHeader("Expires", "Thu 01 Jan 2099 08:49:37 GMT")],       // no comma
        [MockHeader("Expires", "Thu, 01 Jan 2099 08:49:37 UTC")],      // UTC
    ]

    static let valid = [
        "Thu, 01 Jan 2099 08:49:37 GMT",     // IMF-fixdate
        "Saturday, 01-Jul-45 08:49:37 GMT",  // RFC 850
        "Thu Jan  1 08:49:37 2099",          // asctime
    ]

    @Test(arguments: invalid, StoreLife.allCases)
    func anInvalidExpiresIsAlreadyStale(expires: [MockHeader], life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        countingRoute(fixture.server, headers: expires)
        _ = try await fixture.client.send(Feed(), cachePolicy: .followHTTP)

        let later = try await fixture.after(life)
        let second = try await later.client.response(for: Feed(), cachePolicy: .followHTTP)
        #expect(second.source == .network)
        #expect(second.value["n"]?.int == 2)
    }

    @Test(arguments: valid, StoreLife.allCases)
    func eachOfTheThreeFormatsIsFresh(expires: String, life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        countingRoute(fixture.server, headers: [MockHeader("Expires", expires)])
        _ = try await fixture.client.send(Feed(), cachePolicy: .followHTTP)

        let later = try await fixture.after(life)
        let second = try await later.client.response(for: Feed(), cachePolicy: .followHTTP)
        #expect(second.source == .cache)
        #expect(second.value["n"]?.int == 1)
    }
}
