import Courier
import CourierCache
import CourierTesting
import HTTPTypes
import Testing

/// RFC 9111 §4.1 lets a cache normalise selecting header fields by their semantics:
/// `Accept-Language: en-US, fr` and `FR, en-us` select the same stored response.
@Suite struct VaryLanguageTests {
    static let cases: [(language: String, hit: Bool)] = [("FR, en-us", true), ("en-us,fr", true), ("de", false), ("en-US", false)]

    @Test(arguments: cases, StoreLife.allCases)
    func languageOrderAndCaseDoNotMatter(other: (language: String, hit: Bool), life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        countingRoute(fixture.server, headers: [MockHeader("Cache-Control", "max-age=600"), MockHeader("Vary", "Accept-Language")])
        _ = try await fixture.client.send(Feed(headers: [.acceptLanguage: "en-US, fr"]), cachePolicy: .followHTTP)

        let later = try fixture.after(life)
        let second = try await later.client.response(for: Feed(headers: [.acceptLanguage: other.language]), cachePolicy: .followHTTP)
        #expect(second.source == (other.hit ? .cache : .network))
        #expect(second.value["n"]?.int == (other.hit ? 1 : 2))
    }
}
