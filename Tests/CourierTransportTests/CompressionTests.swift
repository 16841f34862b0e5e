import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import CourierCache
import CourierTestSupport
import CourierTesting
import Foundation
import NIOHTTPCompression
import Testing

/// Compressed responses over AsyncHTTPClient: asked for, decoded within a ratio limit (a bomb costs
/// nothing), corrupt bytes a typed error, the app's own `Accept-Encoding` respected, ranges sent
/// as `identity`, and the cache keeping the decoded representation with consistent fields.
@Suite struct CompressionTests {
    /// gzip's output for `data` (the system's `gzip`, a real encoder).
    static func gzip(_ data: Data) throws -> Data {
        try ChildProcess.run("/usr/bin/gzip", ["-c", "-n"], input: data).output
    }

    static let rows = Data(("[" + (0..<2000).map { #"{"id":\#($0),"name":"row \#($0)","active":true}"# }.joined(separator: ",") + "]").utf8)

    private struct Rows: Endpoint {
        typealias Response = [Row]
        var path: EndpointPath { "/rows" }
        var headers: HTTPFields = [:]
        var cachePolicy: CachePolicy? = nil
    }

    struct Row: Codable, Sendable { var id: Int; var name: String; var active: Bool }

    private func serveCompressed(_ server: MockServer, _ body: Data, extra: [MockHeader] = []) {
        server.route("GET", "/rows") { request in
            guard request.header("Accept-Encoding")?.contains("gzip") == true, let compressed = try? Self.gzip(body) else {
                return .bytes(Array(body), contentType: "application/json", headers: extra)
            }
            return .bytes(Array(compressed), contentType: "application/json", headers: [MockHeader("Content-Encoding", "gzip")] + extra)
        }
    }

    @Test func aCompressedBodyIsAskedForAndDecoded() async throws {
        try await withServer(.asyncHTTPClient) { server, client in
            serveCompressed(server, Self.rows)
            let response = try await client.response(for: Rows())
            #expect(response.value.count == 2000)
            let sent = try #require(server.lastRequest)
            #expect(sent.header("Accept-Encoding")?.contains("gzip") == true)
            // The decoded representation: no field still describes the compressed bytes.
            #expect(response.head.headerFields[.contentEncoding] == nil)
            #expect(response.head.headerFields[.contentLength] == nil)
        }
    }

    @Test func theAppsOwnAcceptEncodingIsSentAsItIsAndTheBodyStillDecoded() async throws {
        try await withServer(.asyncHTTPClient) { server, client in
            serveCompressed(server, Self.rows)
            let rows = try await client.send(Rows(headers: [.acceptEncoding: "gzip"]))
            #expect(rows.count == 2000)
            #expect(server.lastRequest?.header("Accept-Encoding") == "gzip")
        }
    }

    /// 256 MB of zeros in about 250 KB: stopped at the ratio limit, long before it is inflated.
    @Test func aDecompressionBombStopsAtTheLimit() async throws {
        let bomb = try Self.gzip(Data(count: 256 << 20))
        #expect(bomb.count < 1 << 20)
        try await withServer(.asyncHTTPClient) { server, client in
            server.route("GET", "/rows", respond: .bytes(Array(bomb), contentType: "application/json", headers: [MockHeader("Content-Encoding", "gzip")]))
            let error = await #expect(throws: CourierError.self) { _ = try await client.send(Rows()) }
            #expect(error?.kind == .bodyTooLarge, "\(String(describing: error))")
        }
    }

    @Test func aCorruptCompressedBodyIsAnInvalidResponse() async throws {
        var corrupt = try Self.gzip(Self.rows)
        for index in stride(from: 20, to: corrupt.count - 10, by: 7) { corrupt[index] ^= 0x5A }
        try await withServer(.asyncHTTPClient) { server, client in
            server.route("GET", "/rows", respond: .bytes(Array(corrupt), contentType: "application/json", headers: [MockHeader("Content-Encoding", "gzip")]))
            let error = await #expect(throws: CourierError.self) { _ = try await client.send(Rows()) }
            #expect(error?.kind == .invalidResponse, "\(String(describing: error))")
        }
    }

    /// `data` through Python's zlib: `wbits` 15 is the zlib format, -15 raw deflate (another real encoder).
    static func deflate(_ data: Data, wbits: Int) throws -> Data {
        let script = "import sys, zlib; c = zlib.compressobj(6, zlib.DEFLATED, \(wbits)); d = sys.stdin.buffer.read(); sys.stdout.buffer.write(c.compress(d) + c.flush())"
        return try ChildProcess.run("/usr/bin/python3", ["-c", script], input: data).output
    }

    /// RFC 9110's `deflate` is the zlib format; some servers send raw deflate data under the name: both decode.
    @Test(arguments: [15, -15])
    func deflateIsDecodedInEitherForm(wbits: Int) async throws {
        let compressed = try Self.deflate(Self.rows, wbits: wbits)
        #expect(compressed.count < Self.rows.count / 5)
        try await withServer(.asyncHTTPClient) { server, client in
            server.route("GET", "/rows", respond: .bytes(Array(compressed), contentType: "application/json", headers: [MockHeader("Content-Encoding", "deflate")]))
            let rows = try await client.send(Rows())
            #expect(rows.count == 2000)
        }
    }

    /// Two gzip members in a row are one body (RFC 1952 §2.2).
    @Test func gzipMembersInARowAreOneBody() async throws {
        let half = Self.rows.count / 2
        let body = try Self.gzip(Self.rows.prefix(half)) + Self.gzip(Self.rows.suffix(from: half))
        try await withServer(.asyncHTTPClient) { server, client in
            server.route("GET", "/rows", respond: .bytes(Array(body), contentType: "application/json", headers: [MockHeader("Content-Encoding", "gzip")]))
            let rows = try await client.send(Rows())
            #expect(rows.count == 2000)
        }
    }

    /// A compressed body cut short is never taken for the whole representation.
    @Test func aTruncatedCompressedBodyIsAnInvalidResponse() async throws {
        let truncated = try Self.gzip(Self.rows).dropLast(40)
        try await withServer(.asyncHTTPClient) { server, client in
            server.route("GET", "/rows", respond: .bytes(Array(truncated), contentType: "application/json", headers: [MockHeader("Content-Encoding", "gzip")]))
            let error = await #expect(throws: CourierError.self) { _ = try await client.send(Rows()) }
            #expect(error?.kind == .invalidResponse, "\(String(describing: error))")
        }
    }

    /// Over HTTP/2 too: asked for, decoded, and the fields that described the compressed bytes gone.
    @Test func aCompressedBodyIsDecodedOverHTTP2() async throws {
        let server = try await MockServer.start(tls: .http2)
        defer { Task { try? await server.shutdown() } }
        serveCompressed(server, Self.rows)
        let transport = try AsyncHTTPClientTransport(trust: .only(roots: [TestCertificates.caPEM]))
        let client = Client(baseURL: server.baseURL, transport: transport) { $0.timeout = .seconds(300) }
        let response = try await client.response(for: Rows())
        #expect(response.value.count == 2000)
        #expect(response.head.headerFields[.contentEncoding] == nil)
        #expect(server.lastRequest?.header("Accept-Encoding")?.contains("gzip") == true)
    }

    /// A configuration that has AsyncHTTPClient decode is honoured: decoded once, by it, and the
    /// response still loses the fields that described the compressed bytes.
    @Test func aConfigurationThatDecodesItselfIsNotDecodedTwice() async throws {
        let server = try await MockServer.start()
        defer { Task { try? await server.shutdown() } }
        serveCompressed(server, Self.rows)
        var configuration = AsyncHTTPClientTransport.recommendedConfiguration
        configuration.decompression = .enabled(limit: .ratio(AsyncHTTPClientTransport.decompressionRatioLimit))
        let client = Client(baseURL: server.baseURL, transport: try AsyncHTTPClientTransport(trust: .system, configuration: configuration))
        let response = try await client.response(for: Rows())
        #expect(response.value.count == 2000)
        #expect(response.head.headerFields[.contentEncoding] == nil)
    }

    /// A range counts bytes of the representation as stored: it is asked for uncompressed.
    @Test func aRangeRequestAsksForIdentity() async throws {
        try await withServer(.asyncHTTPClient) { server, client in
            serveCompressed(server, Self.rows)
            _ = try? await client.send(Rows(headers: [.range: "bytes=0-99"]))
            #expect(server.lastRequest?.header("Accept-Encoding") == "identity")
        }
    }

    /// The cache keeps the decoded body under fields that describe it, and serves it as it was.
    @Test func theCacheStoresTheDecodedRepresentation() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-gzip-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteCacheStorage(fileURL: directory.appendingPathComponent("cache.sqlite"), maximumSize: 8 << 20)
        let cache = HTTPCache(storage: store)
        let server = try await MockServer.start()
        defer { Task { try? await server.shutdown() } }
        serveCompressed(server, Self.rows, extra: [MockHeader("Cache-Control", "max-age=600")])
        let client = Client(baseURL: server.baseURL, transport: AsyncHTTPClientTransport(), middlewares: [cache])
        _ = try await client.send(Rows(cachePolicy: .followHTTP))
        let hit = try await client.response(for: Rows(cachePolicy: .followHTTP))
        #expect(hit.source == .cache)
        #expect(hit.value.count == 2000)
        #expect(hit.head.headerFields[.contentEncoding] == nil)
        #expect(server.requestCount("/rows") == 1)
        await store.close()
    }
}
