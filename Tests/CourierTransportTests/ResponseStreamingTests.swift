import Courier
import CourierTestSupport
import CourierAsyncHTTPClient
import CourierCache
import CourierTesting
import Foundation
import Logging
import Testing

/// Response bodies stream through the transport and the chain; they are gathered once, at the
/// client's edge, and every read on the way is bounded.
@Suite struct ResponseStreamingTests {
    private let context = RequestContext(endpoint: "Stream", cachePolicy: .withoutCache, isIdempotent: true, timeout: .seconds(300))

    @Test func theAsyncHTTPClientTransportHandsTheBodyOverAsItArrives() async throws {
        let server = try await MockServer.start()
        defer { Task { try? await server.shutdown() } }
        let bytes = distinctBytes(4 << 20, seed: 31)
        server.route("GET", "/big", respond: .bytes(bytes, contentType: "application/octet-stream"))
        let transport = AsyncHTTPClientTransport()
        let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/big")
        try await RequestContext.$current.withValue(context) {
            let (response, received) = try await transport.send(request, body: nil, baseURL: server.baseURL, operationID: "Stream")
            #expect(response.status == .ok)
            let body = try #require(received)
            #expect(body.length == .known(Int64(bytes.count)))
            var chunks = 0
            var gathered: [UInt8] = []
            for try await chunk in body {
                chunks += 1
                gathered += chunk
            }
            #expect(gathered == bytes)
            #expect(chunks > 1, "a 4 MiB body came as one buffer: it was gathered, not streamed")
        }
    }

    /// The server sends a first chunk and holds the rest until the test ends: only dropping the
    /// body can free the connection.
    @Test func anUnreadBodyFreesItsConnectionAtOnce() async throws {
        let server = try await MockServer.start()
        defer { Task { try? await server.shutdown() } }
        let rest = Level()
        defer { rest.open() }
        let body = String(repeating: "x", count: 200_000)
        let held = Fault.paced(chunkSize: 1000) { chunk in
            if chunk >= 1 { await rest.wait() }
        }
        server.route("GET", "/drip", respond: .text(body).with(fault: held))
        let transport = AsyncHTTPClientTransport()
        let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/drip")
        try await RequestContext.$current.withValue(context) {
            let (response, _) = try await transport.send(request, body: nil, baseURL: server.baseURL, operationID: "Stream")
            #expect(response.status == .ok)
        }
        #expect(await server.waitUntilConnectionsClosed(timeout: .seconds(120)), "the dropped body kept its connection open")
    }

    private struct Drip: Endpoint {
        typealias Response = Data
        var path: EndpointPath { "/drip" }
    }

    /// The server sends each 1000-byte chunk only once the caller has read the one before: a
    /// transport that gathered the body would never get past the first (and fail at its idle timeout).
    @Test(arguments: TransportKind.allCases)
    func bytesForHandsEachChunkOverAsItArrives(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            let body = Array(repeating: UInt8(ascii: "x"), count: 10_000)
            let read = Level()
            let paced = Fault.paced(chunkSize: 1000) { chunk in await read.wait(until: chunk * 1000) }
            server.route("GET", "/drip", respond: .bytes(body, contentType: "text/plain").with(fault: paced))
            let response = try await client.bytes(for: Drip())
            var count = 0, arrivals = 0
            for try await chunk in response.value {
                arrivals += 1
                count += chunk.count
                read.raise(to: count)
            }
            #expect(count == body.count)
            #expect(arrivals >= 10)
        }
    }

    /// The server sends a first chunk and holds the rest until the test ends: only dropping the
    /// body can free the connection.
    @Test(arguments: TransportKind.allCases)
    func aDroppedStreamFreesItsConnection(kind: TransportKind) async throws {
        let rest = Level()
        defer { rest.open() }
        try await withServer(kind) { server, client in
            let body = Array(repeating: UInt8(ascii: "x"), count: 200_000)
            let held = Fault.paced(chunkSize: 1000) { chunk in
                if chunk >= 1 { await rest.wait() }
            }
            server.route("GET", "/drip", respond: .bytes(body, contentType: "text/plain").with(fault: held))
            do {
                let response = try await client.bytes(for: Drip())
                var iterator = response.value.makeAsyncIterator()
                _ = try await iterator.next()
            }
            #expect(await server.waitUntilConnectionsClosed(timeout: .seconds(120)), "the dropped body kept its connection open")
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aCachedEndpointsBodyIsBoundedByTheClientsLimit(kind: TransportKind) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-stream-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = try SQLiteCacheStorage(fileURL: directory.appendingPathComponent("cache.sqlite"), maximumSize: 64 << 20)
        let server = try await MockServer.start()
        defer { Task { try? await server.shutdown() } }
        server.route("GET", "/big", respond: .json("[" + String(repeating: "1,", count: 100_000) + "1]", headers: [MockHeader("Cache-Control", "max-age=600")]))
        let cache = HTTPCache(storage: store)
        let client = Client(baseURL: server.baseURL, transport: kind.make(), middlewares: [cache]) {
            $0.maximumBodySize = 64 * 1024
            $0.cachePolicy = .followHTTP
        }
        let error = await #expect(throws: CourierError.self) { try await client.send(Call<[Int]>(path: "/big")) }
        #expect(error?.kind == .bodyTooLarge)
        #expect(try await cache.statistics().entryCount == 0)
    }

    @Test(arguments: TransportKind.allCases)
    func loggingReadsOnlyBodiesAnnouncedWithinItsLimit(kind: TransportKind) async throws {
        let server = try await MockServer.start()
        defer { Task { try? await server.shutdown() } }
        let few = [Item(id: 1, title: "one")]
        let many = (0..<2000).map { Item(id: $0, title: "item \($0)") }
        server.route("GET", "/few", respond: .json(few))
        server.route("GET", "/many", respond: .json(many))
        let sink = LogRecorder()
        let logger = sink.logger(level: .debug)
        let client = Client(baseURL: server.baseURL, transport: kind.make(), middlewares: [LoggingMiddleware(logger: logger, logsBodies: true)])
        #expect(try await client.send(Call<[Item]>(path: "/few")) == few)
        #expect(try await client.send(Call<[Item]>(path: "/many")) == many)
        let bodies = sink.entries.compactMap { $0.metadata["courier.body"].map { "\($0)" } }
        #expect(bodies.count == 1)
        #expect(bodies.first?.contains("\"title\":\"one\"") == true)
    }
}
