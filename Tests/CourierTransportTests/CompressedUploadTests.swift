import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// An endpoint's opt-in gzip request body, over a socket on both transports: what arrives is gzip
/// (decoded here by the system's `gzip`, not by Courier) under `Content-Encoding: gzip`, whole,
/// for bytes, a file (compressed again on a retry), a stream and a form; bodies that don't opt in
/// go as they are.
@Suite struct CompressedUploadTests {
    /// What `gzip -dc` makes of `data`; nil when it isn't valid gzip.
    static func gunzip(_ data: [UInt8]) throws -> [UInt8]? {
        let (status, output) = try ChildProcess.run("/usr/bin/gzip", ["-dc"], input: Data(data))
        return status == 0 ? Array(output) : nil
    }

    /// A repetitive JSON batch, the kind of body worth compressing.
    static let batch = Array(("[" + (0..<20_000).map { #"{"event":"view","item":\#($0 % 97)}"# }.joined(separator: ",") + "]").utf8)

    private func received(_ server: MockServer) throws -> [UInt8]? {
        let request = try #require(server.lastRequest)
        #expect(request.header("Content-Encoding") == "gzip")
        #expect(request.body.count < Self.batch.count / 5, "compressed: \(request.body.count) bytes")
        return try Self.gunzip(request.body)
    }

    @Test(arguments: TransportKind.allCases)
    func bytesArriveCompressedAndWhole(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("PUT", "/upload", respond: .json("{}"))
            _ = try await client.send(Upload(body: RequestBody.data(Data(Self.batch), contentType: "application/json").gzipped()))
            #expect(try received(server) == Self.batch)
            #expect(server.lastRequest?.header("Content-Type") == "application/json")
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aStreamIsCompressedAsItIsSent(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("PUT", "/upload", respond: .json("{}"))
            let chunks = AsyncStream<ArraySlice<UInt8>> { continuation in
                for start in stride(from: 0, to: Self.batch.count, by: 1_000) {
                    continuation.yield(Self.batch[start..<min(start + 1_000, Self.batch.count)])
                }
                continuation.finish()
            }
            _ = try await client.send(Upload(body: RequestBody.stream(chunks, contentType: "application/x-ndjson").gzipped()))
            #expect(try received(server) == Self.batch)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aFormIsCompressedWithItsFraming(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("PUT", "/upload", respond: .json("{}"))
            let form = MultipartForm([.data("batch", Data(Self.batch), contentType: "application/json")])
            _ = try await client.send(Upload(body: RequestBody.multipart(form).gzipped()))
            let text = String(decoding: try #require(try received(server)), as: UTF8.self)
            #expect(text.contains(#"name="batch""#))
            #expect(text.contains(String(decoding: Self.batch, as: UTF8.self)))
        }
    }

    /// A retried file upload compresses the file again from its start: the second attempt is whole gzip.
    @Test func aRetriedFileIsCompressedAgain() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("courier-gzip-upload-\(UUID().uuidString).json")
        try Data(Self.batch).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let server = try await MockServer.start()
        defer { Task { try? await server.shutdown() } }
        server.route("PUT", "/upload", script: [.status(503), .json("{}")])
        let client = clientRetryingOnce(server)
        let response = try await client.response(for: Upload(body: RequestBody.file(file, contentType: "application/json").gzipped()))
        #expect(response.attempts == 2)
        #expect(try received(server) == Self.batch)
    }

    @Test func aBodyThatDoesNotOptInGoesAsItIs() async throws {
        try await withServer(.asyncHTTPClient) { server, client in
            server.route("PUT", "/upload", respond: .json("{}"))
            _ = try await client.send(Upload(body: .data(Data(Self.batch), contentType: "application/json")))
            let request = try #require(server.lastRequest)
            #expect(request.header("Content-Encoding") == nil)
            #expect(request.body == Self.batch)
        }
    }

    /// An empty body is still one valid gzip member (header and trailer).
    @Test func anEmptyBodyIsAValidGzipMember() async throws {
        try await withServer(.asyncHTTPClient) { server, client in
            server.route("PUT", "/upload", respond: .json("{}"))
            _ = try await client.send(Upload(body: RequestBody.data(Data(), contentType: "application/json").gzipped()))
            let request = try #require(server.lastRequest)
            #expect(Array(request.body.prefix(2)) == [0x1f, 0x8b])
            #expect(try Self.gunzip(request.body) == [])
        }
    }
}
