import Courier
import CourierAsyncHTTPClient
import CourierCache
import CourierTestSupport
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// A request's own `If-None-Match` or `If-Modified-Since` (a backend forwarding its client's) is
/// answered by the cache from a fresh stored response: a `304` with the stored validators when the
/// conditions find it unchanged (RFC 9111 §4.3.2, RFC 9110 §13.2.2), the whole response otherwise;
/// over both transports.
@Suite struct ConditionalRequestTests {
    private struct Conditional: Endpoint {
        typealias Response = JSON
        var conditions: [(HTTPField.Name, String)]
        var path: EndpointPath { "/feed" }
        var cachePolicy: CachePolicy? { .followHTTP }
        var headers: HTTPFields {
            var fields = HTTPFields()
            for (name, value) in conditions { fields.append(HTTPField(name: name, value: value)) }
            return fields
        }
    }

    static let lastModified = "Mon, 07 Dec 2026 10:00:00 GMT"

    /// Each case: the request's conditions, and whether the stored response is unchanged for them.
    static let cases: [(conditions: [(HTTPField.Name, String)], unchanged: Bool)] = [
        ([(.ifNoneMatch, #""v1""#)], true),
        ([(.ifNoneMatch, #"W/"v1""#)], true),  // weak comparison
        ([(.ifNoneMatch, #""v0", "v1""#)], true),
        ([(.ifNoneMatch, "*")], true),
        ([(.ifNoneMatch, #""v2""#)], false),
        // If-None-Match decides alone: the date that would hold is not looked at.
        ([(.ifNoneMatch, #""v2""#), (.ifModifiedSince, "Tue, 08 Dec 2026 10:00:00 GMT")], false),
        ([(.ifModifiedSince, lastModified)], true),
        ([(.ifModifiedSince, "Tue, 08 Dec 2026 10:00:00 GMT")], true),
        ([(.ifModifiedSince, "Mon, 07 Dec 2026 09:59:59 GMT")], false),
        ([(.ifModifiedSince, "yesterday")], false),  // not a date: ignored
    ]

    @Test(arguments: CacheTransport.allCases, cases.indices)
    func aFreshStoredResponseAnswersTheRequestsOwnConditions(transport: CacheTransport, index: Int) async throws {
        let (conditions, unchanged) = Self.cases[index]
        let fixture = try await CacheFixture.make(transport: transport.make())
        defer { Task { await fixture.tearDown() } }
        countingRoute(fixture.server, headers: [
            MockHeader("Cache-Control", "max-age=600"), MockHeader("ETag", #""v1""#), MockHeader("Last-Modified", Self.lastModified),
        ])
        _ = try await fixture.client.send(Conditional(conditions: []))
        await fixture.cache.flush()
        if unchanged {
            let error = try #require(await #expect(throws: CourierError.self) { try await fixture.client.send(Conditional(conditions: conditions)) })
            #expect(error.status?.code == 304)
            let fields = try #require(error.responseHeaders)
            #expect(fields[.eTag] == #""v1""#)
            #expect(fields[.cacheControl] == "max-age=600")
            #expect(fields[.lastModified] == Self.lastModified)
            #expect(fields[.contentType] == nil && fields[.contentLength] == nil)
            #expect(error.bodySnippet?.isEmpty ?? true)
        } else {
            let response = try await fixture.client.response(for: Conditional(conditions: conditions))
            #expect(response.source == .cache)
            #expect(response.value["n"]?.int == 1)
        }
        #expect(fixture.server.requestCount("/feed") == 1, "answered from the cache")
    }

    /// A stale entry is revalidated with the cache's own validators; once the origin's `304`
    /// refreshes it, the request's own conditions are answered from it.
    @Test(arguments: CacheTransport.allCases)
    func aRevalidatedEntryAnswersTheRequestsOwnConditions(transport: CacheTransport) async throws {
        let fixture = try await CacheFixture.make(transport: transport.make())
        defer { Task { await fixture.tearDown() } }
        let fields = [MockHeader("Cache-Control", "max-age=60"), MockHeader("ETag", #""v1""#)]
        fixture.server.route("GET", "/feed") { request in
            request.header("If-None-Match") == #""v1""# ? .status(304, headers: fields) : .json(#"{"n":1}"#, headers: fields)
        }
        _ = try await fixture.client.send(Conditional(conditions: []))
        await fixture.cache.flush()
        fixture.clock.advance(by: 120)
        let error = try #require(await #expect(throws: CourierError.self) {
            try await fixture.client.send(Conditional(conditions: [(.ifNoneMatch, #""v1""#)]))
        })
        #expect(error.status?.code == 304)
        #expect(fixture.server.requestCount("/feed") == 2)
        #expect(fixture.server.recordedRequests.last?.header("If-None-Match") == #""v1""#)
        let whole = try await fixture.client.response(for: Conditional(conditions: [(.ifNoneMatch, #""v0""#)]))
        #expect(whole.source == .cache && whole.value["n"]?.int == 1, "refreshed: fresh again for another tag")
    }
}
