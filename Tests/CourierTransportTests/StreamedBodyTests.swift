import Courier
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
            #expect(response.status == .ok)
            #expect(try await String(collecting: response.value, upTo: 1 << 20) == Self.lines)
        }
    }

    @Test func overAsyncHTTPClientTheFirstChunkComesLongBeforeTheLast() async throws {
        try await withServer(.asyncHTTPClient) { server, client in
            // A chunk every 3 s: the whole body would take ~35 s, so a first chunk well before that
            // was handed over as it came, however loaded the machine.
            let drip = MockResponse.text(Self.lines, contentType: "application/x-ndjson").with(fault: .drip(chunkSize: 8, interval: .seconds(3)))
            server.route("GET", "/feed.ndjson", respond: drip)
            let started = ContinuousClock.now
            let response = try await client.bytes(for: Feed())
            var iterator = response.value.makeAsyncIterator()
            let first = try await iterator.next()
            #expect(first.map { Array($0) } == Array(Self.lines.utf8.prefix(first?.count ?? 0)))
            #expect(first?.isEmpty == false)
            #expect(ContinuousClock.now - started < .seconds(20), "the first chunk waited for the whole body")
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
