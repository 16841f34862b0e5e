import Courier
import CourierCache
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// RFC 9111 §3.3, §4 with RFC 9110 §14: a `206` to a range request is stored as an incomplete
/// response and answers later requests for bytes it holds; a stored complete response answers
/// byte-range, open-ended and suffix ranges with a `206` the cache builds, and an unsatisfiable
/// range with a `416`; a request for the whole is never answered from a part.
@Suite struct PartialContentTests {
    static let video: [UInt8] = Array(UInt8(0)..<UInt8(100))

    /// Serves `/video` (ranges included, fresh ten minutes) as ``video`` with ETag `"v1"` once,
    /// then as `edited` with `"v2"`: a representation that changes after the first call.
    static func routeVideo(on server: MockServer, changingTo edited: [UInt8]) {
        let calls = Locked(0)
        server.route("GET", "/video") { request in
            let call = calls.withLock { value -> Int in
                value += 1
                return value
            }
            let headers = [MockHeader("Cache-Control", "max-age=600")]
            return call == 1
                ? .ranged(video, for: request, etag: "\"v1\"", headers: headers)
                : .ranged(edited, for: request, etag: "\"v2\"", headers: headers)
        }
    }

    /// Serves ``video`` with `ETag: "v1"`, ranges honoured, fresh for 10 minutes.
    static func rangedRoute(_ server: MockServer) {
        server.route("GET", "/video") { request in
            .ranged(video, for: request, etag: "\"v1\"", headers: [MockHeader("Cache-Control", "max-age=600")])
        }
    }

    @Test(arguments: StoreLife.allCases)
    func aStoredPartAnswersRangesItHolds(life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        Self.rangedRoute(fixture.server)
        let first = try await fixture.client.response(for: VideoBytes(range: "bytes=-20"), cachePolicy: .followHTTP)
        #expect(first.head.status == .partialContent)
        #expect(first.source == .network)

        let later = try await fixture.after(life)
        let cases: [(range: String, bytes: Range<Int>)] = [("bytes=-20", 80..<100), ("bytes=90-", 90..<100), ("bytes=-5", 95..<100), ("bytes=85-89", 85..<90)]
        for (range, bytes) in cases {
            let part = try await later.client.response(for: VideoBytes(range: range), cachePolicy: .followHTTP)
            #expect(part.source == .cache, "\(range)")
            #expect(part.head.status == .partialContent)
            #expect(part.value == Data(Self.video[bytes]))
            #expect(part.head.headerFields[.contentRange] == "bytes \(bytes.lowerBound)-\(bytes.upperBound - 1)/100")
            #expect(part.head.headerFields[.contentLength] == String(bytes.count))
        }
        #expect(fixture.server.requestCount("/video") == 1)

        let elsewhere = try await later.client.response(for: VideoBytes(range: "bytes=0-9"), cachePolicy: .followHTTP)
        #expect(elsewhere.source == .network, "the part doesn't hold bytes 0-9")
        #expect(elsewhere.value == Data(Self.video[0..<10]))
        #expect(fixture.server.requestCount("/video") == 2)
    }

    /// §3.3 asks no validator of a stored part: while fresh it answers the ranges it holds. Two
    /// parts without one are never combined (§3.4), so the newer replaces the older.
    @Test(arguments: StoreLife.allCases)
    func aPartWithoutAValidatorAnswersRangesItHoldsButIsNeverCombined(life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        fixture.server.route("GET", "/video") { request in
            .ranged(Self.video, for: request, etag: nil, headers: [MockHeader("Cache-Control", "max-age=600")])
        }
        _ = try await fixture.client.send(VideoBytes(range: "bytes=0-49"), cachePolicy: .followHTTP)

        let later = try await fixture.after(life)
        let part = try await later.client.response(for: VideoBytes(range: "bytes=10-19"), cachePolicy: .followHTTP)
        #expect(part.source == .cache)
        #expect(part.head.status == .partialContent)
        #expect(part.value == Data(Self.video[10..<20]))
        #expect(fixture.server.requestCount("/video") == 1)

        // The next bytes come from the network and, without a validator to prove both parts are one
        // version, replace the stored part instead of joining it.
        _ = try await later.client.send(VideoBytes(range: "bytes=50-99"), cachePolicy: .followHTTP)
        let joined = try await later.client.response(for: VideoBytes(range: "bytes=40-59"), cachePolicy: .followHTTP)
        #expect(joined.source == .network, "never assembled from two unvalidated parts")
        #expect(joined.value == Data(Self.video[40..<60]))
        let whole = try await later.client.response(for: VideoBytes(), cachePolicy: .followHTTP)
        #expect(whole.source == .network && whole.head.status == .ok)
    }

    @Test(arguments: StoreLife.allCases)
    func aRequestForTheWholeIsNeverAnsweredFromAPart(life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        Self.rangedRoute(fixture.server)
        _ = try await fixture.client.send(VideoBytes(range: "bytes=0-49"), cachePolicy: .followHTTP)

        let later = try await fixture.after(life)
        let whole = try await later.client.response(for: VideoBytes(), cachePolicy: .followHTTP)
        #expect(whole.head.status == .ok)
        #expect(whole.source == .network)
        #expect(whole.value == Data(Self.video))
        let cached = try await later.client.response(for: VideoBytes(), cachePolicy: .followHTTP)
        #expect(cached.source == .cache, "the complete response replaced the part")
        #expect(cached.value == Data(Self.video))
        #expect(fixture.server.requestCount("/video") == 2)
    }

    @Test(arguments: StoreLife.allCases)
    func theAppsPoliciesNeverAnswerTheWholeFromAPart(life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        Self.rangedRoute(fixture.server)
        _ = try await fixture.client.send(VideoBytes(range: "bytes=0-49"), cachePolicy: .followHTTP)

        let later = try await fixture.after(life)
        let held = try await later.client.response(for: VideoBytes(range: "bytes=10-19"), cachePolicy: .cacheOnly)
        #expect(held.value == Data(Self.video[10..<20]))
        let missing = await #expect(throws: CourierError.self) {
            try await later.client.send(VideoBytes(), cachePolicy: .cacheOnly)
        }
        #expect(missing?.status == .gatewayTimeout)
        let whole = try await later.client.response(for: VideoBytes(), cachePolicy: .alwaysUseCache)
        #expect(whole.source == .network)
        #expect(whole.value == Data(Self.video))
        #expect(fixture.server.requestCount("/video") == 2)
    }

    static let rangesOfTheWhole: [(range: String, bytes: Range<Int>)] = [
        ("bytes=10-19", 10..<20), ("bytes=10-", 10..<100), ("bytes=-5", 95..<100), ("bytes=90-150", 90..<100),
        ("bytes=-500", 0..<100), ("BYTES=0-0", 0..<1),
    ]

    @Test(arguments: rangesOfTheWhole, StoreLife.allCases)
    func aStoredCompleteResponseAnswersRanges(value: (range: String, bytes: Range<Int>), life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        Self.rangedRoute(fixture.server)
        _ = try await fixture.client.send(VideoBytes(), cachePolicy: .followHTTP)

        let later = try await fixture.after(life)
        let part = try await later.client.response(for: VideoBytes(range: value.range), cachePolicy: .followHTTP)
        #expect(part.source == .cache)
        #expect(part.head.status == .partialContent)
        #expect(part.value == Data(Self.video[value.bytes]))
        #expect(part.head.headerFields[.contentRange] == "bytes \(value.bytes.lowerBound)-\(value.bytes.upperBound - 1)/100")
        #expect(part.head.headerFields[.contentLength] == String(value.bytes.count))
        #expect(part.head.headerFields[.eTag] == "\"v1\"")
        #expect(fixture.server.requestCount("/video") == 1)
    }

    @Test(arguments: ["bytes=100-", "bytes=-0", "bytes=500-600"], StoreLife.allCases)
    func anUnsatisfiableRangeGetsA416FromTheCache(range: String, life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        Self.rangedRoute(fixture.server)
        _ = try await fixture.client.send(VideoBytes(), cachePolicy: .followHTTP)

        let later = try await fixture.after(life)
        let error = await #expect(throws: CourierError.self) {
            try await later.client.send(VideoBytes(range: range), cachePolicy: .followHTTP)
        }
        #expect(error?.status == .rangeNotSatisfiable)
        #expect(error?.responseHeaders?[.contentRange] == "bytes */100")
        #expect(fixture.server.requestCount("/video") == 1)
    }

    @Test(arguments: ["bytes=0-1,5-6", "bytes=5-2", "bytes=abc", "items=0-1", "bytes=99999999999999999999-"], StoreLife.allCases)
    func severalOrMalformedRangesGoToTheNetwork(range: String, life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        Self.rangedRoute(fixture.server)
        _ = try await fixture.client.send(VideoBytes(), cachePolicy: .followHTTP)

        let later = try await fixture.after(life)
        // The test server answers 200 or 416; what matters is that the server decided.
        _ = try? await later.client.send(VideoBytes(range: range), cachePolicy: .followHTTP)
        #expect(fixture.server.requestCount("/video") == 2)
        #expect(fixture.server.lastRequest?.header("Range") == range)
    }

    @Test(arguments: StoreLife.allCases)
    func ifRangeDecidesBetweenAPartAndTheWhole(life: StoreLife) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        Self.rangedRoute(fixture.server)
        _ = try await fixture.client.send(VideoBytes(), cachePolicy: .followHTTP)

        let later = try await fixture.after(life)
        let matching = try await later.client.response(for: VideoBytes(range: "bytes=0-9", ifRange: "\"v1\""), cachePolicy: .followHTTP)
        #expect(matching.head.status == .partialContent)
        #expect(matching.value == Data(Self.video[0..<10]))
        let changed = try await later.client.response(for: VideoBytes(range: "bytes=0-9", ifRange: "\"v0\""), cachePolicy: .followHTTP)
        #expect(changed.head.status == .ok, "a failed If-Range asks for the whole representation")
        #expect(changed.value == Data(Self.video))
        #expect(changed.source == .cache)
        #expect(fixture.server.requestCount("/video") == 1)
    }
}

/// `GET /video` as raw bytes, optionally with `Range` and `If-Range`.
struct VideoBytes: Endpoint {
    typealias Response = Data
    var path: EndpointPath = "/video"
    var headers: HTTPFields = [:]

    init(range: String? = nil, ifRange: String? = nil) {
        if let range { headers[.range] = range }
        if let ifRange { headers[.ifRange] = ifRange }
    }
}
