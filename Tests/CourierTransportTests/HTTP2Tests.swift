import Courier
import CourierTestSupport
import CourierAsyncHTTPClient
import CourierCache
import CourierTesting
import Foundation
import Testing

/// Courier over HTTP/2 (TLS with ALPN, AsyncHTTPClient): calls share one connection, a cancelled
/// call leaves the others running, and transfers, streams, coalescing and the cache behave as over
/// HTTP/1.1.
@Suite(.serialized) struct HTTP2Tests {
    /// An HTTP/2 mock server and a client over AsyncHTTPClient that trusts its test CA.
    private func withH2Server<T>(
        middlewares: [any ClientMiddleware] = [], _ body: (MockServer, Client) async throws -> T
    ) async throws -> T {
        try await withServer(Wire(kind: .asyncHTTPClient, tls: .http2), middlewares: middlewares, body)
    }

    @Test func thirtyTwoConcurrentCallsShareOneConnection() async throws {
        try await withH2Server { server, client in
            server.route("GET", "/items/*") { request in .json(#"{"id":1,"title":"\#(request.path)"}"#) }
            // One call first: the connection exists (and is known to speak HTTP/2) before the crowd.
            _ = try await client.send(Call<Item>(path: "/items/warm"))
            let titles = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<32 { group.addTask { try await client.send(Call<Item>(path: "/items/\(index)")).title } }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(Set(titles).count == 32)
            #expect(server.connectionsOpened == 1, "every call went over one HTTP/2 connection")
            #expect(Set(server.recordedRequests.map(\.connectionID)).count == 1)
        }
    }

    @Test func cancellingOneCallLeavesTheOthersRunning() async throws {
        try await withH2Server { server, client in
            let (arrived, release) = (Level(), Level())
            server.route("GET", "/slow") { _ in
                arrived.add()
                await release.wait()
                return .json(#"{"id":0,"title":"slow"}"#)
            }
            server.route("GET", "/items/*", respond: .json(#"{"id":1,"title":"fast"}"#))
            _ = try await client.send(Call<Item>(path: "/items/warm"))
            let cancelled = Task { try await client.send(Call<Item>(path: "/slow")) }
            let kept = Task { try await client.send(Call<Item>(path: "/slow")) }
            await arrived.wait(until: 2)
            cancelled.cancel()
            let error = await #expect(throws: CourierError.self) { try await cancelled.value }
            #expect(error?.kind == .cancelled)
            // The connection still carries new calls, and the other slow call finishes.
            #expect(try await client.send(Call<Item>(path: "/items/after")).title == "fast")
            release.open()
            #expect(try await kept.value.title == "slow")
            #expect(server.connectionsOpened == 1)
        }
    }

    @Test func aDownloadAnUploadAndAStreamBehaveAsOverHTTP1() async throws {
        try await withH2Server { server, client in
            server.route("GET", "/report.bin", respond: .bytes(transferBytes, contentType: "application/octet-stream"))
            server.route("PUT", "/upload", respond: .json("{}"))
            try await withFolder { folder in
                let destination = folder.appendingPathComponent("report.bin")
                _ = try await client.download(Download(), to: destination)
                #expect(try Data(contentsOf: destination) == Data(transferBytes))

                let source = folder.appendingPathComponent("source.bin")
                try Data(transferBytes).write(to: source)
                _ = try await client.send(Upload(body: .file(source)))
                #expect(server.lastRequest?.bodyLength == transferBytes.count)
            }
            var streamed = Data()
            for try await chunk in try await client.bytes(for: Download()).value { streamed += chunk }
            #expect(streamed == Data(transferBytes))
        }
    }

    @Test func coalescingAndTheCacheBehaveAsOverHTTP1() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-h2-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteCacheStorage(fileURL: directory.appendingPathComponent("cache.sqlite"), maximumSize: 8 << 20)
        let cache = HTTPCache(storage: store)
        try await withH2Server(middlewares: [cache]) { server, client in
            let (arrived, release) = (Level(), Level())
            server.route("GET", "/feed") { _ in
                arrived.add()
                await release.wait()
                return .json(#"{"id":1,"title":"feed"}"#, headers: [MockHeader("Cache-Control", "max-age=600")])
            }
            let first = Task { try await client.send(Call<Item>(path: "/feed"), cachePolicy: .followHTTP) }
            await arrived.wait()
            // Joins the call in flight (or, should the answer be faster, is a hit): one request either way.
            let joined = Task { try await client.send(Call<Item>(path: "/feed"), cachePolicy: .followHTTP) }
            release.open()
            #expect(try await first.value.title == "feed")
            #expect(try await joined.value.title == "feed")
            let hit = try await client.response(for: Call<Item>(path: "/feed"), cachePolicy: .followHTTP)
            #expect(hit.source == .cache)
            #expect(server.requestCount("/feed") == 1)
        }
        await store.close()
    }

    private struct Download: Endpoint {
        typealias Response = Data
        var path: EndpointPath { "/report.bin" }
    }
}
