import Courier
import CourierAsyncHTTPClient
import CourierCache
import CourierTesting
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// A full disk costs the cache new entries, never the ones it has: calls go on over the network,
/// and what was stored is still served when the network is gone.
@Suite struct StoreFullDiskTests {
    #if canImport(Glibc)
    private static let canMount = getuid() == 0

    @Test(.enabled(if: canMount, "mounting a tmpfs needs root"))
    func aFullDiskKeepsWhatIsStoredAndTheCallsGoOn() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            try #require(Glibc.mount("tmpfs", directory.path, "tmpfs", 0, "size=2m") == 0)
            defer { _ = Glibc.umount2(directory.path, 0) }
            let server = try await MockServer.start()
            defer { Task { try? await server.shutdown() } }
            server.route("GET", "/feed*") { request in
                .json(#"{"path":"\#(request.path)","pad":"\#(String(repeating: "x", count: 2000))"}"#,
                      headers: [MockHeader("Cache-Control", "max-age=600")])
            }
            let logs = LogRecorder()
            let store = try SQLiteCacheStorage(fileURL: directory.appendingPathComponent("cache.sqlite"), maximumSize: 50 << 20, logger: logs.logger)
            let cache = HTTPCache(storage: store)
            let client = Client(baseURL: server.baseURL, transport: AsyncHTTPClientTransport(), middlewares: [cache])
            for n in 0..<5 { _ = try await client.send(Feed(path: "/feed/\(n)"), cachePolicy: .followHTTP) }
            await cache.flush()

            // Fill what is left of the disk.
            let filler = directory.appendingPathComponent("filler")
            #expect(FileManager.default.createFile(atPath: filler.path, contents: nil))
            let handle = try FileHandle(forWritingTo: filler)
            while (try? handle.write(contentsOf: Data(count: 64 << 10))) != nil {}
            try? handle.close()

            // New responses can't be stored; the calls still succeed.
            for n in 5..<40 { _ = try await client.send(Feed(path: "/feed/\(n)"), cachePolicy: .followHTTP) }
            #expect(try await cache.statistics().failures >= 1)
            #expect(store.recoveries == 0)

            // Offline, everything stored before the disk filled is still there.
            try await server.goDown()
            for n in 0..<5 {
                let response = try await client.response(for: Feed(path: "/feed/\(n)"), cachePolicy: .cacheOnly)
                #expect(response.value["path"]?.string == "/feed/\(n)")
            }

            // With room again, new responses are stored.
            try FileManager.default.removeItem(at: filler)
            try await server.comeUp()
            _ = try await client.send(Feed(path: "/feed/new"), cachePolicy: .followHTTP)
            #expect(try await client.response(for: Feed(path: "/feed/new"), cachePolicy: .cacheOnly).source == .cache)
        }
    }

    private struct Pack: Endpoint {
        typealias Response = Data
        var path: EndpointPath { "/pack" }
        var cachePolicy: CachePolicy? { .followHTTP }
    }

    /// A download the cache may keep but the disk can't hold arrives all the same; the copy fails
    /// alone, and what was stored before stays.
    @Test(.enabled(if: canMount, "mounting a tmpfs needs root"))
    func aDownloadTheDiskCannotHoldArrivesAndTheStoredEntriesStay() async throws {
        try await StoreFixtures.withTemporaryDirectory { directory in
            let storeFolder = directory.appendingPathComponent("store")
            try FileManager.default.createDirectory(at: storeFolder, withIntermediateDirectories: true)
            try #require(Glibc.mount("tmpfs", storeFolder.path, "tmpfs", 0, "size=2m") == 0)
            defer { _ = Glibc.umount2(storeFolder.path, 0) }
            let server = try await MockServer.start()
            defer { Task { try? await server.shutdown() } }
            let pack = [UInt8](repeating: 42, count: 3 << 20)
            server.route("GET", "/feed/1", respond: .json(#"{"path":"/feed/1"}"#, headers: [MockHeader("Cache-Control", "max-age=600")]))
            server.route("GET", "/pack", respond: .bytes(pack, contentType: "application/octet-stream", headers: [MockHeader("Cache-Control", "max-age=600")]))
            let logs = LogRecorder()
            let store = try SQLiteCacheStorage(fileURL: storeFolder.appendingPathComponent("cache.sqlite"), maximumSize: 50 << 20, logger: logs.logger)
            let cache = HTTPCache(storage: store)
            let client = Client(baseURL: server.baseURL, transport: AsyncHTTPClientTransport(), middlewares: [cache])
            _ = try await client.send(Feed(path: "/feed/1"), cachePolicy: .followHTTP)
            await cache.flush()

            let destination = directory.appendingPathComponent("pack.bin")
            _ = try await client.download(Pack(), to: destination)
            #expect(try Data(contentsOf: destination) == Data(pack))
            #expect(try await cache.statistics().failures >= 1)
            #expect(store.recoveries == 0)
            #expect(try await client.download(Pack(), to: destination).source == .network)

            try await server.goDown()
            let stored = try await client.response(for: Feed(path: "/feed/1"), cachePolicy: .cacheOnly)
            #expect(stored.source == .cache)
            await store.close()
        }
    }
    #endif
}
