import Courier
import CourierCache
import CourierTesting
import HTTPTypes
import Testing

/// RFC 9111 §5.2.2.4 and §5.2.2.7: `no-cache="field"` and `private="field"` keep the listed fields
/// out of the store; the rest of the response is served while fresh, without revalidation.
@Suite struct QualifiedNoCacheTests {
    static let cases: [(cacheControl: String, field: String)] = [
        ("max-age=600, no-cache=\"X-Secret\"", "X-Secret"),
        ("max-age=600, private=\"Set-Cookie\"", "Set-Cookie"),
    ]

    @Test(arguments: cases, StoreLife.allCases)
    func theListedFieldIsNotStored(directive: (cacheControl: String, field: String), life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        countingRoute(fixture.server, headers: [
            MockHeader("Cache-Control", directive.cacheControl), MockHeader(directive.field, "user-1"), MockHeader("X-Other", "kept"),
        ])
        let name = try #require(HTTPField.Name(directive.field))
        #expect(try await fixture.client.response(for: Feed(), cachePolicy: .followHTTP).head.headerFields[name] == "user-1")

        let later = try await fixture.after(life)
        let cached = try await later.client.response(for: Feed(), cachePolicy: .followHTTP)
        #expect(cached.source == .cache, "a qualified directive does not force revalidation of the whole response")
        #expect(cached.value["n"]?.int == 1)
        #expect(cached.head.headerFields[name] == nil)
        #expect(cached.head.headerFields[try #require(HTTPField.Name("X-Other"))] == "kept")
    }
}
