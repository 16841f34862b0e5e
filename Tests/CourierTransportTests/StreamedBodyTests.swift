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

    @Test func overAsyncHTTPClientTheFirstChunkComesBeforeTheLast() async throws {
        try await withServer(.asyncHTTPClient) { server, client in
            // Ten lines, one every 150 ms: the whole body takes ~1.5 s.
            let drip = MockResponse.text(Self.lines, contentType: "application/x-ndjson").with(fault: .drip(chunkSize: 8, interval: .milliseconds(150)))
            server.route("GET", "/feed.ndjson", respond: drip)
            let started = ContinuousClock.now
            let response = try await client.bytes(for: Feed())
            var iterator = response.value.makeAsyncIterator()
            let first = try await iterator.next()
            #expect(first?.isEmpty == false)
            #expect(ContinuousClock.now - started < .milliseconds(1000), "the first chunk waited for the whole body")
            var rest = Array(first ?? [])
            while let chunk = try await iterator.next() { rest += chunk }
            #expect(String(decoding: rest, as: UTF8.self) == Self.lines)
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
