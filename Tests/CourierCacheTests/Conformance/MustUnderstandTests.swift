import Courier
import CourierCache
import CourierTesting
import Testing

/// RFC 9111 §5.2.2.3: `no-store, must-understand` is stored by a cache that implements the status
/// code's caching rules, and `must-understand` on a status it does not know keeps it out.
@Suite struct MustUnderstandTests {
    static let cases: [(status: Int, cacheControl: String, stored: Bool)] = [
        (200, "no-store, must-understand, max-age=600", true),
        (299, "must-understand, max-age=600", false),
        (200, "no-store, max-age=600", false),
    ]

    @Test(arguments: cases, StoreLife.allCases)
    func mustUnderstandDecidesByStatus(value: (status: Int, cacheControl: String, stored: Bool), life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        let counter = Locked(0)
        fixture.server.route("GET", "/feed") { _ in
            let n = counter.withLock { value -> Int in
                value += 1
                return value
            }
            return .json(#"{"n":\#(n)}"#, status: value.status, headers: [MockHeader("Cache-Control", value.cacheControl)])
        }
        _ = try await fixture.client.send(Feed(), cachePolicy: .followHTTP)

        let later = try await fixture.after(life)
        let second = try await later.client.response(for: Feed(), cachePolicy: .followHTTP)
        #expect(second.source == (value.stored ? .cache : .network))
        #expect(second.value["n"]?.int == (value.stored ? 1 : 2))
    }
}
