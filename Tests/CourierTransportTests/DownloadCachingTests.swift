import Courier
import CourierCache
import CourierTesting
import Foundation
import Testing

/// A download bypasses the HTTP cache unless asked; asked, its bytes go into the store from the
/// file and come back out into the next file a chunk at a time, by the policy's rules.
@Suite struct DownloadCachingTests {
    private struct Report: Endpoint {
        typealias Response = Data
        var path: EndpointPath = "/report.bin"
    }

    /// The same download, declaring that it may be cached.
    private struct CachedReport: Endpoint {
        typealias Response = Data
        var path: EndpointPath = "/report.bin"
        var cachePolicy: CachePolicy? { .followHTTP }
    }

    private static let etag = "\"r1\""

    /// A server, a store in `folder` and a client with the cache over `kind`, shut down after `body`.
    private func withCachedDownloads(
        _ kind: TransportKind, maximumSize: Int = 64 << 20, headers: [MockHeader] = [MockHeader("Cache-Control", "max-age=600")],
        configure: (inout Client.Configuration) -> Void = { _ in },
        _ body: (MockServer, Client, SQLiteCacheStorage, _ folder: URL) async throws -> Void
    ) async throws {
        try await withFolder { folder in
            let storeFile = folder.appendingPathComponent("cache/store.sqlite")
            let store = try SQLiteCacheStorage(fileURL: storeFile, maximumSize: maximumSize)
            let server = try await MockServer.start()
            server.route("GET", "/report.bin") { request in
                // A conditional request for the current version is answered without the bytes.
                if request.header("If-None-Match") == Self.etag { return MockResponse(status: 304, headers: [MockHeader("ETag", Self.etag)] + headers) }
                return .bytes(transferBytes, contentType: "application/octet-stream", headers: [MockHeader("ETag", Self.etag)] + headers)
            }
            let client = Client(baseURL: server.baseURL, transport: kind.make(), middlewares: [HTTPCache(storage: store)], configure: configure)
            do {
                try await body(server, client, store, folder)
                try await server.shutdown()
            } catch {
                try? await server.shutdown()
                throw error
            }
            await store.close()
        }
    }

    /// Downloads `endpoint` twice (the store's copy waited for in between) and checks that both came
    /// from the network, whole, and that nothing was stored.
    private func expectDownloadedTwice(
        _ endpoint: some Endpoint, _ server: MockServer, _ client: Client, _ store: SQLiteCacheStorage, to destination: URL
    ) async throws {
        _ = try await client.download(endpoint, to: destination)
        let again = try await client.download(endpoint, to: destination)
        #expect(again.source == .network)
        #expect(server.requestCount("/report.bin") == 2)
        #expect(try Data(contentsOf: destination) == Data(transferBytes))
        #expect(try await store.totals().count == 0)
    }

    /// Not even when the client's default policy caches: a download is asked for by the call or its endpoint.
    @Test(arguments: TransportKind.allCases)
    func aDownloadBypassesTheCacheUnlessAsked(kind: TransportKind) async throws {
        try await withCachedDownloads(kind, configure: { $0.cachePolicy = .followHTTP }) { server, client, store, folder in
            try await expectDownloadedTwice(Report(), server, client, store, to: folder.appendingPathComponent("report.bin"))
        }
    }

    @Test(arguments: TransportKind.allCases)
    func anOptedInDownloadIsServedFromTheStoreIntoTheNextFile(kind: TransportKind) async throws {
        try await withCachedDownloads(kind) { server, client, store, folder in
            let first = try await client.download(Report(), to: folder.appendingPathComponent("first.bin"), cachePolicy: .followHTTP)
            #expect(first.source == .network)
            // Copied from the file before the download returned.
                #expect(try await store.totals().count == 1)

            let destination = folder.appendingPathComponent("second.bin")
            let updates = Locked<[TransferProgress]>([])
            let second = try await client.download(CachedReport(), to: destination) { progress in updates.withLock { $0.append(progress) } }
            #expect(second.source == .cache)
            #expect(server.requestCount("/report.bin") == 1)
            #expect(try Data(contentsOf: destination) == Data(transferBytes))
            #expect(second.bodySize == transferBytes.count)
            #expect(updates.current.last == TransferProgress(completedBytes: Int64(transferBytes.count), totalBytes: Int64(transferBytes.count)))
            #expect(try contents(of: folder) == ["cache", "first.bin", "second.bin"])
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aStoredDownloadOutlivesTheStore(kind: TransportKind) async throws {
        try await withCachedDownloads(kind) { server, client, store, folder in
            _ = try await client.download(CachedReport(), to: folder.appendingPathComponent("first.bin"))
            await store.close()
            // The app starts again: a new store on the same file, a new client.
            let reopened = try SQLiteCacheStorage(fileURL: folder.appendingPathComponent("cache/store.sqlite"), maximumSize: 64 << 20)
            let restarted = Client(baseURL: server.baseURL, transport: kind.make(), middlewares: [HTTPCache(storage: reopened)])
            let destination = folder.appendingPathComponent("second.bin")
            let second = try await restarted.download(CachedReport(), to: destination)
            #expect(second.source == .cache)
            #expect(server.requestCount("/report.bin") == 1)
            #expect(try Data(contentsOf: destination) == Data(transferBytes))
            await reopened.close()
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aStaleDownloadIsRevalidatedAndTheStoredBytesServeTheNotModified(kind: TransportKind) async throws {
        try await withCachedDownloads(kind, headers: [MockHeader("Cache-Control", "no-cache")]) { server, client, store, folder in
            _ = try await client.download(CachedReport(), to: folder.appendingPathComponent("first.bin"))
                let destination = folder.appendingPathComponent("second.bin")
            let second = try await client.download(CachedReport(), to: destination)
            #expect(second.source == .revalidated)
            #expect(server.recordedRequests.last?.header("If-None-Match") == Self.etag)
            #expect(try Data(contentsOf: destination) == Data(transferBytes))
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aResumedDownloadIsAnsweredFromTheStore(kind: TransportKind) async throws {
        try await withCachedDownloads(kind) { server, client, store, folder in
            _ = try await client.download(CachedReport(), to: folder.appendingPathComponent("first.bin"))
                // What a download cut at 1 MiB by an earlier, uncached run left.
            let partial = folder.appendingPathComponent(".second.bin.partial")
            try Data(transferBytes.prefix(1 << 20)).write(to: partial)
            let resume = ResumableDownload(partialFile: partial, validator: Self.etag, completedBytes: 1 << 20, totalBytes: Int64(transferBytes.count))
            let destination = folder.appendingPathComponent("second.bin")
            let second = try await client.download(CachedReport(), to: destination, resumingFrom: resume)
            #expect(second.source == .cache)
            #expect(server.requestCount("/report.bin") == 1)
            #expect(try Data(contentsOf: destination) == Data(transferBytes))
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aDownloadLargerThanTheStoreArrivesAndIsNotStored(kind: TransportKind) async throws {
        try await withCachedDownloads(kind, maximumSize: 1 << 20) { server, client, store, folder in
            try await expectDownloadedTwice(CachedReport(), server, client, store, to: folder.appendingPathComponent("report.bin"))
        }
    }

    /// A decoded call for the same URL gets the stored download, but never loads more of it than
    /// it may gather: past the limit it fails as too large, as from the network.
    @Test(arguments: TransportKind.allCases)
    func aDecodedCallDoesNotLoadALargeStoredDownload(kind: TransportKind) async throws {
        try await withCachedDownloads(kind, configure: { $0.maximumBodySize = 1 << 20 }) { server, client, store, folder in
            _ = try await client.download(CachedReport(), to: folder.appendingPathComponent("report.bin"))
                let error = await #expect(throws: CourierError.self) { try await client.send(CachedReport()) }
            #expect(error?.kind == .bodyTooLarge)
            #expect(server.requestCount("/report.bin") == 1)
        }
    }
}
