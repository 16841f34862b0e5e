import Courier
import CourierCache
import CourierTesting
import HTTPTypes
import Testing

/// RFC 9111 §4.1 lets a cache normalise selecting header fields by their semantics:
/// `Accept-Language: en-US, fr` and `FR, en-us` select the same stored response, and a stored
/// response whose `Content-Language` is the language a request prefers most answers it.
@Suite struct VaryLanguageTests {
    static let cases: [(language: String, hit: Bool)] = [("FR, en-us", true), ("en-us,fr", true), ("de", false), ("en-US", false)]

    @Test(arguments: cases, StoreLife.allCases)
    func languageOrderAndCaseDoNotMatter(other: (language: String, hit: Bool), life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        countingRoute(fixture.server, headers: [MockHeader("Cache-Control", "max-age=600"), MockHeader("Vary", "Accept-Language")])
        _ = try await fixture.client.send(Feed(headers: [.acceptLanguage: "en-US, fr"]), cachePolicy: .followHTTP)

        let later = try await fixture.after(life)
        let second = try await later.client.response(for: Feed(headers: [.acceptLanguage: other.language]), cachePolicy: .followHTTP)
        #expect(second.source == (other.hit ? .cache : .network))
        #expect(second.value["n"]?.int == (other.hit ? 1 : 2))
    }

    static let preferences: [(language: String, hit: Bool)] = [("fr;q=0.5, en", true), ("en-GB;q=0.3, en;q=0.8", true), ("en;q=0.5, fr", false)]

    @Test(arguments: preferences, StoreLife.allCases)
    func aResponseInThePreferredLanguageAnswers(other: (language: String, hit: Bool), life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        countingRoute(fixture.server, headers: [
            MockHeader("Cache-Control", "max-age=600"), MockHeader("Vary", "Accept-Language"), MockHeader("Content-Language", "en"),
        ])
        _ = try await fixture.client.send(Feed(headers: [.acceptLanguage: "en"]), cachePolicy: .followHTTP)

        let later = try await fixture.after(life)
        let second = try await later.client.response(for: Feed(headers: [.acceptLanguage: other.language]), cachePolicy: .followHTTP)
        #expect(second.source == (other.hit ? .cache : .network))
        #expect(second.value["n"]?.int == (other.hit ? 1 : 2))
    }
}
