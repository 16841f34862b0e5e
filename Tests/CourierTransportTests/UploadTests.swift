import Courier
import CourierTesting
import Foundation
import Testing

/// Files, bytes and streams go up with their content type; a file is read as it is sent and sent
/// again whole on a retry; a stream is sent once.
@Suite struct UploadTests {
    private static let bytes = distinctBytes(3 << 20, seed: 13)

    private func withFile<T>(_ bytes: [UInt8], _ body: (URL) async throws -> T) async throws -> T {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-upload-\(UUID().uuidString).bin")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try await body(file)
    }

    @Test(arguments: TransportKind.allCases)
    func aFileArrivesWholeWithItsContentType(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("PUT", "/upload", respond: .json("{}"))
            try await withFile(Self.bytes) { file in
                _ = try await client.send(Upload(body: .file(file, contentType: "image/jpeg")))
            }
            let request = try #require(server.lastRequest)
            #expect(request.body == Self.bytes)
            #expect(request.header("Content-Type") == "image/jpeg")
            #if os(Linux)
            // FoundationNetworking sends every streamed body chunked: that it did shows the file streamed.
            if kind == .urlSession {
                #expect(request.header("Transfer-Encoding") == "chunked")
                return
            }
            #endif
            #expect(request.header("Content-Length") == "\(Self.bytes.count)")
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aStreamOfUnknownLengthGoesChunked(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("PUT", "/upload", respond: .json("{}"))
            let chunks = AsyncStream<ArraySlice<UInt8>> { continuation in
                for start in stride(from: 0, to: 300_000, by: 10_000) { continuation.yield(ArraySlice(Self.bytes[start..<start + 10_000])) }
                continuation.finish()
            }
            _ = try await client.send(Upload(body: .stream(chunks, contentType: "application/x-ndjson")))
            let request = try #require(server.lastRequest)
            #expect(request.body == Array(Self.bytes.prefix(300_000)))
            #expect(request.header("Content-Type") == "application/x-ndjson")
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aLargeFileArrivesWholeAtASink(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.sink("PUT", "/upload", respond: .json("{}"))
            let bytes = distinctBytes(8 << 20, seed: 5)
            try await withFile(bytes) { file in
                _ = try await client.send(Upload(body: .file(file, contentType: "application/octet-stream")))
            }
            let request = try #require(server.lastRequest)
            #expect(request.bodyLength == bytes.count)
            #expect(request.bodySHA256 == RecordedRequest(method: "PUT", target: "/upload", body: bytes).bodySHA256)
        }
    }

    @Test func aRetriedFileUploadSendsTheWholeFileAgain() async throws {
        let server = try await MockServer.start()
        defer { Task { try? await server.shutdown() } }
        server.route("PUT", "/upload", script: [.status(503), .json("{}")])
        let client = clientRetryingOnce(server)
        try await withFile(Self.bytes) { file in
            let response = try await client.response(for: Upload(body: .file(file)))
            #expect(response.attempts == 2)
        }
        #expect(server.recordedRequests.count == 2)
        #expect(server.recordedRequests.allSatisfy { $0.body == Self.bytes })
    }

    /// A client over `kind` that retries up to `attempts` times, quickly.
    private static func retrying(_ server: MockServer, _ kind: TransportKind, attempts: Int) -> Client {
        Client(
            baseURL: server.baseURL, transport: kind.make(),
            middlewares: [RetryMiddleware(policy: RetryPolicy(maximumAttempts: attempts, baseDelay: .milliseconds(10), totalDeadline: .seconds(600)))]
        ) { $0.timeout = .seconds(300) }
    }

    /// A stream body of one 10 kB chunk: it can be sent once.
    private static func oneChunk() -> AsyncStream<ArraySlice<UInt8>> {
        AsyncStream { input in
            input.yield(ArraySlice(bytes.prefix(10_000)))
            input.finish()
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aStreamUploadIsNotRetriedAndTheErrorSaysWhy(kind: TransportKind) async throws {
        let server = try await MockServer.start()
        defer { Task { try? await server.shutdown() } }
        server.route("PUT", "/upload", script: [MockResponse.json("{}").with(fault: .closeWithoutResponse), .json("{}")])
        let error = await #expect(throws: CourierError.self) {
            try await Self.retrying(server, kind, attempts: 3).send(Upload(body: .stream(Self.oneChunk())))
        }
        #expect(error?.kind == .connectionLost)
        #expect(error?.detail.contains("not retried: the request body is a stream that can be sent only once") == true)
        #expect(server.requestCount("/upload") == 1)
    }

    /// A status the policy would retry is returned as it is, and its error says why it wasn't retried.
    @Test(arguments: TransportKind.allCases)
    func aStreamUploadAnsweredWithARetryableStatusSaysWhyItWasNotRetried(kind: TransportKind) async throws {
        let server = try await MockServer.start()
        defer { Task { try? await server.shutdown() } }
        server.route("PUT", "/upload", script: [.json(#"{"message":"Busy"}"#, status: 503), .json("{}")])
        let error = await #expect(throws: CourierError.self) {
            try await Self.retrying(server, kind, attempts: 3).send(Upload(body: .stream(Self.oneChunk())))
        }
        #expect(error?.status == .serviceUnavailable)
        #expect(error?.serverMessage == "Busy")
        #expect(error?.detail == "The server answered 503 (not retried: the request body is a stream that can be sent only once)")
        #expect(server.requestCount("/upload") == 1)

        // A file body is retried, and nothing is said.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-retried-\(UUID().uuidString).bin")
        try Data(Self.bytes.prefix(10_000)).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        server.route("PUT", "/upload", script: [.json(#"{"message":"Busy"}"#, status: 503), .json(#"{"message":"Still busy"}"#, status: 503)])
        let retried = await #expect(throws: CourierError.self) { try await Self.retrying(server, kind, attempts: 2).send(Upload(body: .file(file))) }
        #expect(retried?.detail == "The server answered 503")
        #expect(server.requestCount("/upload") == 3)
    }

    /// A file edited between two attempts (same size, other bytes) or replaced by another file is not
    /// sent again under the same `Idempotency-Key`: the retry fails with a file error, nothing is sent.
    @Test(arguments: TransportKind.allCases, [false, true])
    func aFileThatChangesBetweenAttemptsIsNotSentAgain(kind: TransportKind, replaces: Bool) async throws {
        let server = try await MockServer.start()
        defer { Task { try? await server.shutdown() } }
        try await withFile(Self.bytes) { file in
            let edited = distinctBytes(Self.bytes.count, seed: 17)
            let answered = Locked(0)
            server.route("PUT", "/upload") { _ in
                let first = answered.withLock { count in
                    count += 1
                    return count == 1
                }
                guard first else { return .json("{}") }
                // The app edits (or replaces) the file while the first attempt's answer is on its way.
                try? await Task.sleep(for: .milliseconds(20))
                try? Data(edited).write(to: file, options: replaces ? .atomic : [])
                return .status(503)
            }
            let error = await #expect(throws: CourierError.self) {
                try await Self.retrying(server, kind, attempts: 3).send(Upload(body: .file(file), idempotencyKey: .generated))
            }
            #expect(error?.kind == .file, "\(String(describing: error))")
            #expect(error?.detail.contains("changed since the upload began") == true, "\(String(describing: error))")
        }
        #expect(server.requestCount("/upload") == 1, "the edited file never went out under the first attempt's key")
    }

    @Test func aMissingFileFailsBeforeAnythingIsSent() async throws {
        try await withServer(.asyncHTTPClient) { server, client in
            server.route("PUT", "/upload", respond: .json("{}"))
            let missing = FileManager.default.temporaryDirectory.appendingPathComponent("courier-no-such-\(UUID().uuidString).bin")
            let error = await #expect(throws: CourierError.self) { try await client.send(Upload(body: .file(missing))) }
            #expect(error?.kind == .file)
            #expect(server.recordedRequests.isEmpty)
        }
    }

    @Test func aFileThatShrinksWhileItIsSentIsAFileError() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-shrink-\(UUID().uuidString).bin")
        try Data(Self.bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let body = try FileChunks.body(for: file)
        try Data(Self.bytes.prefix(100_000)).write(to: file)
        let error = await #expect(throws: CourierError.self) { _ = try await Data(collecting: body, upTo: .max) }
        #expect(error?.kind == .file)
    }
}
