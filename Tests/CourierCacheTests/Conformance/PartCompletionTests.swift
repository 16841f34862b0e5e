import Courier
import CourierCache
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// RFC 9111 §3.4: a request a stored part holds some of the bytes for asks the origin only for
/// the bytes it lacks (with `If-Range`), and is answered from the combination; a changed
/// representation comes back whole and replaces the part.
@Suite struct PartCompletionTests {
    static let video = PartialContentTests.video

    @Test(arguments: StoreLife.allCases)
    func onlyTheMissingBytesAreAskedFor(life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        PartialContentTests.rangedRoute(fixture.server)
        _ = try await fixture.client.send(VideoBytes(range: "bytes=0-49"), cachePolicy: .followHTTP)

        let later = try await fixture.after(life)
        let whole = try await later.client.response(for: VideoBytes(), cachePolicy: .followHTTP)
        #expect(whole.head.status == .ok)
        #expect(whole.value == Data(Self.video))
        #expect(fixture.server.lastRequest?.header("Range") == "bytes=50-99")
        #expect(fixture.server.lastRequest?.header("If-Range") == "\"v1\"")
        let cached = try await later.client.response(for: VideoBytes(), cachePolicy: .followHTTP)
        #expect(cached.source == .cache)
        #expect(fixture.server.requestCount("/video") == 2)
    }

    @Test(arguments: StoreLife.allCases)
    func aChangedRepresentationComesBackWhole(life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        let edited: [UInt8] = Self.video.reversed()
        PartialContentTests.routeVideo(on: fixture.server, changingTo: edited)
        _ = try await fixture.client.send(VideoBytes(range: "bytes=0-49"), cachePolicy: .followHTTP)

        let later = try await fixture.after(life)
        let part = try await later.client.response(for: VideoBytes(range: "bytes=40-59"), cachePolicy: .followHTTP)
        #expect(part.value == Data(edited), "If-Range failed: the whole new representation")
        let cached = try await later.client.response(for: VideoBytes(), cachePolicy: .followHTTP)
        #expect(cached.source == .cache)
        #expect(cached.value == Data(edited))
        #expect(fixture.server.requestCount("/video") == 2)
    }
}
