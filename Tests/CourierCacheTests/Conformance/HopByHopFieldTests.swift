import Courier
import CourierCache
import CourierTesting
import HTTPTypes
import Testing

/// RFC 9111 §3.1: the fields `Connection` names and the hop-by-hop fields are not stored.
@Suite struct HopByHopFieldTests {
    @Test(arguments: StoreLife.allCases)
    func connectionFieldsAreNotServedFromTheCache(life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        countingRoute(fixture.server, headers: [
            MockHeader("Cache-Control", "max-age=600"), MockHeader("Connection", "X-Per-Hop"), MockHeader("X-Per-Hop", "1"),
            MockHeader("Keep-Alive", "timeout=5"), MockHeader("Proxy-Authenticate", "Basic realm=\"proxy\""),
            MockHeader("X-End-To-End", "kept"),
        ])
        let first = try await fixture.client.response(for: Feed(), cachePolicy: .followHTTP)
        #expect(first.head.headerFields[try #require(HTTPField.Name("X-Per-Hop"))] == "1", "the network answer is passed on whole")

        let later = try await fixture.after(life)
        let cached = try await later.client.response(for: Feed(), cachePolicy: .followHTTP)
        #expect(cached.source == .cache)
        for name in ["Connection", "X-Per-Hop", "Keep-Alive", "Proxy-Authenticate"] {
            #expect(cached.head.headerFields[try #require(HTTPField.Name(name))] == nil, "\(name) was stored")
        }
        #expect(cached.head.headerFields[try #require(HTTPField.Name("X-End-To-End"))] == "kept")
    }
}
