import Courier
import CourierCache
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// RFC 9111 §3.4 (with RFC 9110 §15.3.7.3) and §4.3.4: parts with the same strong validator are
/// combined, and once they hold the whole representation they answer a request for all of it;
/// a part with another validator replaces the stored one; the newest part's header fields win
/// while stored ones it doesn't repeat are kept; a `304` refreshes a stored part; and nothing
/// larger than the store can hold is assembled.
@Suite struct CombiningPartialContentTests {
    static let video = PartialContentTests.video

    static let pairs: [(first: String, second: String)] = [
        ("bytes=0-49", "bytes=50-99"), ("bytes=0-59", "bytes=40-"), ("bytes=-30", "bytes=0-69"),
    ]

    @Test(arguments: pairs, StoreLife.allCases)
    func partsWithTheSameStrongValidatorBecomeTheCompleteResponse(
        value: (first: String, second: String), life: StoreLife
    ) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        PartialContentTests.rangedRoute(fixture.server)
        _ = try await fixture.client.send(VideoBytes(range: value.first), cachePolicy: .followHTTP)

        let later = try await fixture.after(life)
        let second = try await later.client.response(for: VideoBytes(range: value.second), cachePolicy: .followHTTP)
        #expect(second.source == .network, "the stored part doesn't hold all of \(value.second)")
        let whole = try await later.client.response(for: VideoBytes(), cachePolicy: .followHTTP)
        #expect(whole.source == .cache)
        #expect(whole.head.status == .ok)
        #expect(whole.value == Data(Self.video))
        #expect(whole.head.headerFields[.contentLength] == "100")
        #expect(whole.head.headerFields[.contentRange] == nil)
        #expect(fixture.server.requestCount("/video") == 2)
    }

    @Test(arguments: StoreLife.allCases)
    func aPartWithAnotherValidatorReplacesTheStoredOne(life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        let edited: [UInt8] = Self.video.reversed()
        PartialContentTests.routeVideo(on: fixture.server, changingTo: edited)
        _ = try await fixture.client.send(VideoBytes(range: "bytes=0-49"), cachePolicy: .followHTTP)

        let later = try await fixture.after(life)
        _ = try await later.client.send(VideoBytes(range: "bytes=50-99"), cachePolicy: .followHTTP)
        let held = try await later.client.response(for: VideoBytes(range: "bytes=60-69"), cachePolicy: .followHTTP)
        #expect(held.source == .cache)
        #expect(held.value == Data(edited[60..<70]))
        #expect(held.head.headerFields[.eTag] == "\"v2\"")
        let replaced = try await later.client.response(for: VideoBytes(range: "bytes=0-9"), cachePolicy: .followHTTP)
        #expect(replaced.source == .network, "the v1 part is gone, never mixed with v2's bytes")
        #expect(replaced.value == Data(edited[0..<10]))
        #expect(fixture.server.requestCount("/video") == 3)
    }

    @Test(arguments: StoreLife.allCases)
    func theNewestFieldsWinAndStoredFieldsItDoesNotRepeatAreKept(life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        let calls = Locked(0)
        fixture.server.route("GET", "/video") { request in
            let call = calls.withLock { value -> Int in
                value += 1
                return value
            }
            let headers = call == 1
                ? [MockHeader("Cache-Control", "max-age=600"), MockHeader("X-A", "1"), MockHeader("X-B", "1")]
                : [MockHeader("Cache-Control", "max-age=600"), MockHeader("X-A", "2")]
            return .ranged(Self.video, for: request, etag: "\"v1\"", headers: headers)
        }
        _ = try await fixture.client.send(VideoBytes(range: "bytes=0-9"), cachePolicy: .followHTTP)

        let later = try await fixture.after(life)
        _ = try await later.client.send(VideoBytes(range: "bytes=10-19"), cachePolicy: .followHTTP)
        let combined = try await later.client.response(for: VideoBytes(range: "bytes=5-14"), cachePolicy: .followHTTP)
        #expect(combined.source == .cache)
        #expect(combined.value == Data(Self.video[5..<15]))
        #expect(combined.head.headerFields[try #require(HTTPField.Name("X-A"))] == "2")
        #expect(combined.head.headerFields[try #require(HTTPField.Name("X-B"))] == "1")
        #expect(combined.head.headerFields[.contentRange] == "bytes 5-14/100")
        #expect(fixture.server.requestCount("/video") == 2)
    }

    @Test(arguments: StoreLife.allCases)
    func aNotModifiedRefreshesAStoredPart(life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        fixture.server.route("GET", "/video") { request in
            guard request.header("If-None-Match") == "\"v1\"" else {
                return .ranged(Self.video, for: request, etag: "\"v1\"", headers: [
                    MockHeader("Cache-Control", "max-age=10"), MockHeader("X-Version", "1"),
                ])
            }
            return .status(304, headers: [
                MockHeader("ETag", "\"v1\""), MockHeader("Cache-Control", "max-age=600"), MockHeader("X-Version", "2"),
                MockHeader("Content-Range", "bytes 0-0/100"),
            ])
        }
        _ = try await fixture.client.send(VideoBytes(range: "bytes=10-29"), cachePolicy: .followHTTP)
        fixture.clock.advance(by: 30)

        let later = try await fixture.after(life)
        let revalidated = try await later.client.response(for: VideoBytes(range: "bytes=10-19"), cachePolicy: .followHTTP)
        #expect(revalidated.source == .revalidated)
        #expect(fixture.server.lastRequest?.header("Range") == "bytes=10-19")
        let cached = try await later.client.response(for: VideoBytes(range: "bytes=20-29"), cachePolicy: .followHTTP)
        #expect(cached.source == .cache, "the 304 made the part fresh again")
        for (response, bytes) in [(revalidated, 10..<20), (cached, 20..<30)] {
            #expect(response.head.status == .partialContent)
            #expect(response.value == Data(Self.video[bytes]))
            #expect(response.head.headerFields[.contentRange] == "bytes \(bytes.lowerBound)-\(bytes.upperBound - 1)/100")
            #expect(response.head.headerFields[try #require(HTTPField.Name("X-Version"))] == "2")
        }
        #expect(fixture.server.requestCount("/video") == 2)
    }

    @Test(arguments: StoreLife.allCases)
    func partsAreNeverCombinedPastTheStoresSize(life: StoreLife) async throws {
        let fixture = try await CacheFixture.make(maximumSize: 2_600)
        defer { Task { await fixture.tearDown() } }
        let large = (0..<3_000).map { UInt8($0 % 251) }
        fixture.server.route("GET", "/video") { request in
            .ranged(large, for: request, etag: "\"v1\"", headers: [MockHeader("Cache-Control", "max-age=600")])
        }
        _ = try await fixture.client.send(VideoBytes(range: "bytes=0-1999"), cachePolicy: .followHTTP)

        let later = try await fixture.after(life)
        _ = try await later.client.send(VideoBytes(range: "bytes=1500-"), cachePolicy: .followHTTP)
        let newest = try await later.client.response(for: VideoBytes(range: "bytes=1500-1509"), cachePolicy: .followHTTP)
        #expect(newest.source == .cache, "the newer part is kept alone")
        #expect(newest.value == Data(large[1500..<1510]))
        let older = try await later.client.response(for: VideoBytes(range: "bytes=0-9"), cachePolicy: .followHTTP)
        #expect(older.source == .network)
        let whole = try await later.client.response(for: VideoBytes(), cachePolicy: .followHTTP)
        #expect(whole.source == .network)
        #expect(fixture.server.requestCount("/video") == 4)
    }
}
