import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// `Client.bytes(for:)` hands the body over as it arrives; error statuses still fail the call.
@Suite struct StreamedBodyTests {
    private struct Feed: Endpoint {
        typealias Response = Data
        var path: EndpointPath { "/feed.ndjson" }
    }

    private static let lines = (1...10).map { #"{"n":\#($0)}"# + "\n" }.joined()

    @Test(arguments: TransportKind.allCases)
    func theBodyArrivesWhole(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("GET", "/feed.ndjson", respond: .text(Self.lines, contentType: "application/x-ndjson"))
            let response = try await client.bytes(for: Feed())
            #expect(response.head.status == .ok)
            #expect(try await String(collecting: response.value, upTo: 1 << 20) == Self.lines)
        }
    }

    /// The server sends the first 8 bytes and the rest only once the caller has read them: a
    /// transport that waited for the whole body would never hand the first chunk over (and fail at
    /// its idle timeout).
    @Test func overAsyncHTTPClientTheFirstChunkComesLongBeforeTheLast() async throws {
        let firstRead = Level()
        defer { firstRead.open() }
        try await withServer(.asyncHTTPClient) { server, client in
            let paced = Fault.paced(chunkSize: 8) { chunk in
                if chunk >= 1 { await firstRead.wait() }
            }
            let feed = MockResponse.text(Self.lines, contentType: "application/x-ndjson").with(fault: paced)
            server.route("GET", "/feed.ndjson", respond: feed)
            let response = try await client.bytes(for: Feed())
            var iterator = response.value.makeAsyncIterator()
            let first = try await iterator.next()
            #expect(first.map { Array($0) } == Array(Self.lines.utf8.prefix(first?.count ?? 0)))
            #expect(first?.isEmpty == false)
            firstRead.open()
            var all = first.map { Array($0) } ?? []
            while let chunk = try await iterator.next() { all += chunk }
            #expect(String(decoding: all, as: UTF8.self) == Self.lines)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func anErrorStatusFailsTheCall(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("GET", "/feed.ndjson", respond: .json(#"{"message":"Feed closed"}"#, status: 410))
            let error = await #expect(throws: CourierError.self) { try await client.bytes(for: Feed()) }
            #expect(error?.kind == .server)
            #expect(error?.serverMessage == "Feed closed")
        }
    }
}
