import Courier
import CourierCache
import CourierTesting
import Testing

/// RFC 9111 §5.1: of several `Age` lines (or list members) the first counts, and an `Age` that is
/// not delta-seconds is ignored as if absent, so it neither ages the response nor makes it stale.
@Suite struct AgeParsingTests {
    static let cases: [(ages: [MockHeader], fresh: Bool)] = [
        ([MockHeader("Age", "0"), MockHeader("Age", "7200")], true),
        ([MockHeader("Age", "7200"), MockHeader("Age", "0")], false),
        ([MockHeader("Age", "7200, 0")], false),
        ([MockHeader("Age", "old, 7200")], true),
        ([MockHeader("Age", "-7200")], true),
        ([MockHeader("Age", "7200.0")], true),
        ([MockHeader("Age", "60")], true),
    ]

    @Test(arguments: cases, StoreLife.allCases)
    func theFirstAgeMemberDecidesAndAnInvalidOneIsIgnored(ages: (ages: [MockHeader], fresh: Bool), life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        countingRoute(fixture.server, headers: [MockHeader("Cache-Control", "max-age=3600")] + ages.ages)
        _ = try await fixture.client.send(Feed(), cachePolicy: .followHTTP)

        let later = try await fixture.after(life)
        let second = try await later.client.response(for: Feed(), cachePolicy: .followHTTP)
        #expect(second.source == (ages.fresh ? .cache : .network))
        #expect(second.value["n"]?.int == (ages.fresh ? 1 : 2))
    }
}
