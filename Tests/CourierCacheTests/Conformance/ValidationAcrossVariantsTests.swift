import Courier
import CourierCache
import CourierTesting
import HTTPTypes
import Testing

/// RFC 9111 §4.3.1: when stored responses exist for the URL but none matches the request's `Vary`
/// selection, the request carries their entity tags in `If-None-Match`; a `304` naming one of them
/// freshens it and serves it for the new selection, which is then a plain hit.
@Suite struct ValidationAcrossVariantsTests {
    static func vary(_ etag: String) -> [MockHeader] {
        [MockHeader("Cache-Control", "max-age=600"), MockHeader("Vary", "Accept-Language"), MockHeader("ETag", etag)]
    }

    @Test(arguments: StoreLife.allCases)
    func aNotModifiedNamingAStoredVariantServesIt(life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        fixture.server.route("GET", "/feed") { request in
            request.header("If-None-Match") == "\"a\"" ? .status(304, headers: Self.vary("\"a\"")) : .json(#"{"n":1}"#, headers: Self.vary("\"a\""))
        }
        _ = try await fixture.client.send(Feed(headers: [.acceptLanguage: "en"]), cachePolicy: .followHTTP)

        let later = try await fixture.after(life)
        let other = try await later.client.response(for: Feed(headers: [.acceptLanguage: "fr"]), cachePolicy: .followHTTP)
        #expect(other.source == .revalidated)
        #expect(other.value["n"]?.int == 1)
        #expect(fixture.server.lastRequest?.header("If-None-Match") == "\"a\"")
        let again = try await later.client.response(for: Feed(headers: [.acceptLanguage: "fr"]), cachePolicy: .followHTTP)
        #expect(again.source == .cache)
        #expect(fixture.server.requestCount("/feed") == 2)
    }

    @Test(arguments: StoreLife.allCases)
    func aNotModifiedNamingNoStoredVariantIsAskedAgain(life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        fixture.server.route("GET", "/feed", respond: .json(#"{"n":1}"#, headers: Self.vary("\"a\"")))
        _ = try await fixture.client.send(Feed(headers: [.acceptLanguage: "en"]), cachePolicy: .followHTTP)
        // The server now names a representation the cache doesn't hold, then sends it in full.
        fixture.server.route("GET", "/feed") { request in
            request.header("If-None-Match") == nil ? .json(#"{"n":2}"#, headers: Self.vary("\"b\"")) : .status(304, headers: Self.vary("\"z\""))
        }

        let later = try await fixture.after(life)
        let other = try await later.client.response(for: Feed(headers: [.acceptLanguage: "fr"]), cachePolicy: .followHTTP)
        #expect(other.source == .network)
        #expect(other.value["n"]?.int == 2)
        #expect(fixture.server.requestCount("/feed") == 3)
    }
}
