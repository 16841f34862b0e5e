import Courier
import CourierCache
import CourierTesting
import Foundation
import Testing

/// A stored part without a validator, in the shape servers send it (RFC 9111 §3.3, §3.4, §4.3.5):
/// `206`, one `Content-Range`, `Cache-Control`, a `Content-Type`, no `ETag`, `Last-Modified` or
/// `Accept-Ranges`; each range form, over a socket.
@Suite struct PartShapeTests {
    static let body = Array("0123456789".utf8)

    /// Answers each range request with the bytes it names, as a plain server does.
    static func route(_ server: MockServer) {
        server.route("GET", "/text") { request in
            guard let range = request.header("Range"), let (start, end) = Self.bounds(range) else {
                return .bytes(Self.body, contentType: "text/plain", headers: [MockHeader("Cache-Control", "max-age=3600")])
            }
            return .bytes(
                Array(Self.body[start...end]), status: 206, contentType: "text/plain",
                headers: [MockHeader("Content-Range", "bytes \(start)-\(end)/\(Self.body.count)"), MockHeader("Cache-Control", "max-age=3600")])
        }
    }

    /// The first and last byte a single range names in a 10-byte body.
    static func bounds(_ range: String) -> (Int, Int)? {
        let spec = range.replacingOccurrences(of: "bytes=", with: "")
        let parts = spec.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 else { return nil }
        let count = body.count
        if parts[0].isEmpty, let suffix = Int(parts[1]) { return (count - suffix, count - 1) }
        guard let start = Int(parts[0]) else { return nil }
        return (start, parts[1].isEmpty ? count - 1 : min(Int(parts[1]) ?? count - 1, count - 1))
    }

    struct Text: Endpoint {
        typealias Response = Data
        var path: EndpointPath { "/text" }
        var headers: HTTPFields = [:]
        init(_ range: String?) { if let range { headers[.range] = range } }
    }

    @Test(arguments: ["bytes=-5", "bytes=2-6", "bytes=3-"])
    func aPartWithoutValidatorOrAcceptRangesAnswersTheSameRangeAgain(range: String) async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        Self.route(fixture.server)
        let first = try await fixture.client.response(for: Text(range), cachePolicy: .followHTTP)
        await fixture.cache.flush()
        let second = try await fixture.client.response(for: Text(range), cachePolicy: .followHTTP)
        let (start, end) = try #require(Self.bounds(range))
        #expect(first.value == Data(Self.body[start...end]) && second.value == first.value)
        #expect(second.source == .cache && second.head.status == .partialContent, "\(range)")
        #expect(second.head.headerFields[.contentRange] == "bytes \(start)-\(end)/10")
        #expect(fixture.server.requestCount("/text") == 1)
    }

    @Test func aWholeResponseAnswersASmallerRange() async throws {
        let fixture = try await CacheFixture.make()
        defer { Task { await fixture.tearDown() } }
        Self.route(fixture.server)
        _ = try await fixture.client.response(for: Text(nil), cachePolicy: .followHTTP)
        await fixture.cache.flush()
        let part = try await fixture.client.response(for: Text("bytes=-5"), cachePolicy: .followHTTP)
        #expect(part.source == .cache && part.value == Data(Self.body[5...9]) && part.head.headerFields[.contentRange] == "bytes 5-9/10")
        #expect(fixture.server.requestCount("/text") == 1)
    }
}
