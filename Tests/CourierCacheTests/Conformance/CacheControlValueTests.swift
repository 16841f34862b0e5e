import Courier
import CourierCache
import CourierTesting
import Testing

/// RFC 9111 §1.2.2, §4.2.1, §5.2: a `max-age` that is not plain delta-seconds is ignored (here the
/// `Expires` decides instead), and of conflicting `max-age` values the first counts.
@Suite struct CacheControlValueTests {
    static let future = "Thu, 01 Jan 2099 08:49:37 GMT"

    static let cases: [(cacheControl: String, expires: String, fresh: Bool)] = [
        ("max-age = 600", "0", false),      // spaces around '=': ignored, the invalid Expires is expired
        ("max-age =600", "0", false),
        ("max-age=600.5", future, true),    // a decimal: ignored, the Expires is in the future
        ("max-age=abc", future, true),      // letters: ignored
        ("max-age=600, max-age=0", future, true),   // conflicting: the first counts, in either order
        ("max-age=0, max-age=600", future, false),
        ("max-age=600", "0", true),         // a valid max-age wins over Expires
    ]

    @Test(arguments: cases, StoreLife.allCases)
    func maxAgeValues(value: (cacheControl: String, expires: String, fresh: Bool), life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        countingRoute(fixture.server, headers: [MockHeader("Cache-Control", value.cacheControl), MockHeader("Expires", value.expires)])
        _ = try await fixture.client.send(Feed(), cachePolicy: .followHTTP)

        let later = try await fixture.after(life)
        let second = try await later.client.response(for: Feed(), cachePolicy: .followHTTP)
        #expect(second.source == (value.fresh ? .cache : .network))
        #expect(second.value["n"]?.int == (value.fresh ? 1 : 2))
    }
}
