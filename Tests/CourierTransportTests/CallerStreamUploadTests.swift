import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// A caller's stream body: over AsyncHTTPClient it goes out as its chunks come; over either
/// transport a stream that waits holds up no other call, one that goes quiet fails with `timedOut`,
/// and one that ends short of its length is never sent as if whole.
@Suite struct CallerStreamUploadTests {
    private static let chunk = ArraySlice(distinctBytes(64 << 10, seed: 21))

    /// (URLSession gathers a caller's stream first: see `URLSessionTransport`.)
    @Test func overAsyncHTTPClientTheRequestStartsBeforeTheStreamEnds() async throws {
        try await withServer(.asyncHTTPClient) { server, client in
            server.route("PUT", "/upload", respond: .json("{}"))
            let (chunks, input) = AsyncStream<ArraySlice<UInt8>>.makeStream()
            input.yield(Self.chunk)
            async let upload = client.send(Upload(body: .stream(chunks, contentType: "application/octet-stream")))
            // A gathering transport opens no connection until the stream has ended.
            let startedEarly = await eventually { server.connectionsOpened >= 1 }
            input.yield(Self.chunk)
            input.finish()
            _ = try await upload
            #expect(startedEarly)
            #expect(server.lastRequest?.body == Array(Self.chunk) + Array(Self.chunk))
        }
    }

    /// Linux's URLSession runs every session on one queue and reads body streams synchronously
    /// there: a transport that streamed a waiting caller's body would hold up this ping.
    @Test(arguments: TransportKind.allCases)
    func aWaitingStreamHoldsUpNoOtherCall(kind: TransportKind) async throws {
        // A ping held up behind the waiting stream would never finish before it: it would time out
        // however long the timeout, so the timeout leaves room for a loaded machine.
        try await withServer(kind, configure: { $0.timeout = .seconds(120) }) { server, client in
            server.route("PUT", "/upload", respond: .json("{}"))
            server.route("GET", "/ping", respond: .json("{}"))
            let (chunks, input) = AsyncStream<ArraySlice<UInt8>>.makeStream()
            input.yield(Self.chunk)
            let upload = Task { try await client.send(Upload(body: .stream(chunks))) }
            _ = await eventually(within: .seconds(1)) { server.connectionsOpened >= 1 }
            // Held up behind the waiting stream, the ping would wait until its timeout and fail.
            _ = try await client.send(Call<JSON>(path: "/ping"))
            input.finish()
            _ = try await upload.value
            #expect(server.lastRequest?.path == "/upload")
        }
    }

    /// The stream never resumes: the endpoint's 2 s timeout, not the client's 300 s, ends the call.
    @Test(arguments: TransportKind.allCases)
    func aStreamThatGoesQuietTimesOut(kind: TransportKind) async throws {
        try await withServer(kind, configure: { $0.timeout = .seconds(300) }) { server, client in
            server.route("PUT", "/upload", respond: .json("{}"))
            let (chunks, input) = AsyncStream<ArraySlice<UInt8>>.makeStream()
            defer { input.finish() }
            input.yield(Self.chunk)
            let started = ContinuousClock.now
            let error = await #expect(throws: CourierError.self) {
                try await client.send(Upload(body: .stream(chunks), timeout: .seconds(2)))
            }
            #expect(error?.kind == .timedOut)
            // Half the client's timeout: beyond any machine's slowness.
            #expect(started.duration(to: .now) < .seconds(150))
            #expect(server.recordedRequests.isEmpty)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aStreamLongerThanItsLengthIsStoppedAndNotSent(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("PUT", "/upload", respond: .json("{}"))
            // Endless: only a reader that stops at the announced length ever finishes.
            let endless = AsyncStream<ArraySlice<UInt8>> { Self.chunk }
            let error = await #expect(throws: CourierError.self) {
                try await client.send(Upload(body: .stream(endless, length: 1000)))
            }
            #expect(error?.kind == .invalidRequest)
            #expect(server.recordedRequests.isEmpty)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aStreamShorterThanItsLengthIsNeverSentAsWhole(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("PUT", "/upload", respond: .json("{}"))
            for announced: Int64 in [Int64(Self.chunk.count) + 10, (2 << 20) + 10] {
                let chunks = AsyncStream<ArraySlice<UInt8>> { input in
                    input.yield(Self.chunk)
                    input.finish()
                }
                let error = await #expect(throws: CourierError.self) {
                    try await client.send(Upload(body: .stream(chunks, length: announced)))
                }
                #expect(error?.kind == .invalidRequest, "\(announced): \(String(describing: error))")
            }
            #expect(server.recordedRequests.isEmpty)
        }
    }
}
