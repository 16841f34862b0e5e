import Courier
import CourierTesting
import Foundation
import Testing

/// A cut download continues with `Range` + `If-Range`, and starts over cleanly when it can't.
@Suite struct ResumeTests {
    private struct Report: Endpoint {
        typealias Response = Data
        var path: EndpointPath = "/report.bin"
    }

    private static let etag = "\"v1\""
    private static let half = transferBytes.count / 2

    /// Serves `bytes` with ranges; the first answer is cut after `cutAfter` bytes.
    private func routeCutOnce(_ server: MockServer, bytes: [UInt8] = transferBytes, etag: String = etag, cutAfter: Int = half) {
        let served = Locked(0)
        server.route("GET", "/report.bin") { request in
            let first = served.withLock { count in
                defer { count += 1 }
                return count == 0
            }
            let response = MockResponse.ranged(bytes, for: request, etag: etag)
            return first ? response.with(fault: .closeMidBody(afterBytes: cutAfter)) : response
        }
    }

    /// The state a first, cut download leaves.
    private func cutDownload(_ client: Client, to destination: URL) async throws -> ResumableDownload {
        let error = await #expect(throws: CourierError.self) { try await client.download(Report(), to: destination) }
        #expect(error?.kind == .connectionLost)
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        return try #require(error?.resumableDownload)
    }

    /// A download cut once on `kind`, then `body` with what it left.
    private func afterACutDownload(
        _ kind: TransportKind, _ body: (MockServer, Client, _ folder: URL, _ destination: URL, ResumableDownload) async throws -> Void
    ) async throws {
        try await withServer(kind) { server, client in
            routeCutOnce(server)
            try await withFolder { folder in
                let destination = folder.appendingPathComponent("report.bin")
                try await body(server, client, folder, destination, try await cutDownload(client, to: destination))
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aCutDownloadResumesFromWhereItStopped(kind: TransportKind) async throws {
        try await afterACutDownload(kind) { server, client, folder, destination, resume in
            // Everything that reached the client before the cut (bytes still in the socket when the
            // connection ended may be lost: they are asked for again).
            #expect((1...Int64(Self.half)).contains(resume.completedBytes))
            #expect(resume.validator == Self.etag)
            #expect(FileManager.default.fileExists(atPath: resume.partialFile.path))

            let updates = Locked<[TransferProgress]>([])
            _ = try await client.download(Report(), to: destination, resumingFrom: resume) { progress in updates.withLock { $0.append(progress) } }
            #expect(try Data(contentsOf: destination) == Data(transferBytes))
            #expect(try contents(of: folder) == ["report.bin"])
            let second = try #require(server.recordedRequests.last)
            #expect(second.header("Range") == "bytes=\(resume.completedBytes)-")
            #expect(second.header("If-Range") == Self.etag)
            // Progress starts where the file was and never goes back.
            let seen = updates.current
            #expect(seen.allSatisfy { $0.completedBytes > resume.completedBytes })
            #expect(seen.last == TransferProgress(completedBytes: Int64(transferBytes.count), totalBytes: Int64(transferBytes.count)))
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aRetriedDownloadAsksOnlyForTheMissingBytes(kind: TransportKind) async throws {
        let server = try await MockServer.start()
        defer { Task { try? await server.shutdown() } }
        // Large enough that what a cut loses in socket buffers is a small part of it.
        let large = Array(repeating: transferBytes, count: 10).flatMap { $0 }
        let cut = large.count / 2
        routeCutOnce(server, bytes: large, cutAfter: cut)
        let client = Client(
            baseURL: server.baseURL, transport: kind.make(),
            middlewares: [RetryMiddleware(policy: RetryPolicy(maximumAttempts: 2, baseDelay: .milliseconds(10), totalDeadline: .seconds(600)))]
        ) { $0.timeout = .seconds(300) }
        try await withFolder { folder in
            let destination = folder.appendingPathComponent("report.bin")
            let response = try await client.download(Report(), to: destination)
            #expect(response.attempts == 2)
            #expect(try Data(contentsOf: destination) == Data(large))
        }
        let requests = server.recordedRequests
        #expect(requests.count == 2)
        // What the cut lost is what sat in socket buffers (loopback's can hold a few MiB), not the 15 MiB a
        // restart from zero would cost again.
        let resumedFrom = try #require(requests.last?.header("Range").flatMap { Int($0.dropFirst("bytes=".count).dropLast()) })
        #expect(resumedFrom <= cut)
        #expect(cut - resumedFrom < 8 << 20, "the retry asked from \(resumedFrom) after a cut at \(cut)")
    }

    @Test(arguments: TransportKind.allCases)
    func aChangedFileStartsOverCleanly(kind: TransportKind) async throws {
        try await afterACutDownload(kind) { server, client, folder, destination, resume in
            // The file changes on the server: `If-Range` no longer matches, the answer is the whole new file.
            let changed = transferBytes.reversed() as [UInt8]
            server.route("GET", "/report.bin") { request in .ranged(changed, for: request, etag: "\"v2\"") }
            _ = try await client.download(Report(), to: destination, resumingFrom: resume)
            #expect(try Data(contentsOf: destination) == Data(changed))
            #expect(try contents(of: folder) == ["report.bin"])
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aServerThatIgnoresRangesStartsOverCleanly(kind: TransportKind) async throws {
        try await afterACutDownload(kind) { server, client, folder, destination, resume in
            server.route("GET", "/report.bin", respond: .bytes(transferBytes, contentType: "application/octet-stream", headers: [MockHeader("ETag", Self.etag)]))
            _ = try await client.download(Report(), to: destination, resumingFrom: resume)
            #expect(try Data(contentsOf: destination) == Data(transferBytes))
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aWrongContentRangeFailsAndLeavesNothing(kind: TransportKind) async throws {
        try await afterACutDownload(kind) { server, client, folder, destination, resume in
            // A 206 that starts at the wrong byte can't be placed in the file.
            let wrong = MockResponse.bytes(
                Array(transferBytes[100...]), status: 206, contentType: "application/octet-stream",
                headers: [MockHeader("Content-Range", "bytes 100-\(transferBytes.count - 1)/\(transferBytes.count)"), MockHeader("ETag", Self.etag)]
            )
            server.route("GET", "/report.bin", respond: wrong)
            let error = await #expect(throws: CourierError.self) { try await client.download(Report(), to: destination, resumingFrom: resume) }
            #expect(error?.kind == .invalidResponse)
            #expect(error?.resumableDownload == nil)
            let leftovers = try contents(of: folder)
            #expect(leftovers == [])
        }
    }

    /// A 206 whose body runs past its `Content-Range` (a server that never stops) fails typed at
    /// the range's end, and leaves nothing behind.
    @Test(arguments: TransportKind.allCases)
    func a206ThatRunsPastItsContentRangeFailsAtItsEnd(kind: TransportKind) async throws {
        try await afterACutDownload(kind) { server, client, folder, destination, resume in
            let start = Int(resume.completedBytes)
            let endless = MockResponse.bytes(
                Array(transferBytes[start...]) + [UInt8](repeating: 7, count: 4 << 20), status: 206, contentType: "application/octet-stream",
                headers: [MockHeader("Content-Range", "bytes \(start)-\(transferBytes.count - 1)/\(transferBytes.count)"), MockHeader("ETag", Self.etag)]
            )
            server.route("GET", "/report.bin", respond: endless)
            let error = await #expect(throws: CourierError.self) { try await client.download(Report(), to: destination, resumingFrom: resume) }
            #expect(error?.kind == .invalidResponse)
            #expect(error?.detail.contains("Content-Range") == true)
            let leftovers = try contents(of: folder)
            #expect(leftovers == [])
        }
    }

    /// A server (or a proxy) that ignores `If-Range` answers with another version's bytes: they are
    /// not spliced after the old ones; the download starts over once and holds the new version only.
    @Test(arguments: TransportKind.allCases)
    func aResumeAnsweredFromAnotherVersionStartsOverInsteadOfSplicing(kind: TransportKind) async throws {
        try await afterACutDownload(kind) { server, client, folder, destination, resume in
            let changed = distinctBytes(transferBytes.count, seed: 11)
            server.route("GET", "/report.bin") { request in
                // If-Range ignored: any Range gets version 2's bytes.
                var ignoring = request
                ignoring.headers[.ifRange] = nil
                return .ranged(changed, for: ignoring, etag: "\"v2\"")
            }
            _ = try await client.download(Report(), to: destination, resumingFrom: resume)
            #expect(try Data(contentsOf: destination) == Data(changed), "one version, not two spliced")
            #expect(try contents(of: folder) == ["report.bin"])
            let requests = server.recordedRequests.suffix(2)
            #expect(requests.map { $0.header("Range") } == ["bytes=\(resume.completedBytes)-", nil])
            #expect(requests.first?.header("Accept-Encoding") == "identity", "a range counts bytes of the uncompressed file")
        }
    }

    /// The same validator but another complete length is another version too.
    @Test(arguments: TransportKind.allCases)
    func aResumeWhoseCompleteLengthChangedStartsOver(kind: TransportKind) async throws {
        try await afterACutDownload(kind) { server, client, folder, destination, resume in
            let longer = transferBytes + Array(repeating: 7, count: 1000)
            server.route("GET", "/report.bin") { request in .ranged(longer, for: request, etag: Self.etag) }
            _ = try await client.download(Report(), to: destination, resumingFrom: resume)
            #expect(try Data(contentsOf: destination) == Data(longer))
            #expect(server.recordedRequests.suffix(2).map { $0.header("Range") } == ["bytes=\(resume.completedBytes)-", nil])
        }
    }

    /// A resume record whose partial file is a symbolic link (planted, or a record from elsewhere)
    /// is refused: the file the link points to is never written, truncated, renamed or deleted.
    @Test(arguments: TransportKind.allCases)
    func aLinkPlantedAtThePartialPathIsNeverFollowed(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("GET", "/report.bin") { request in .ranged(transferBytes, for: request, etag: Self.etag) }
            try await withFolder { folder in
                let destination = folder.appendingPathComponent("report.bin")
                let precious = folder.appendingPathComponent("precious.txt")
                try Data("keep me".utf8).write(to: precious)
                let planted = folder.appendingPathComponent(".report.bin.\(UUID().uuidString).download")
                try FileManager.default.createSymbolicLink(at: planted, withDestinationURL: precious)
                let resume = ResumableDownload(partialFile: planted, validator: Self.etag, completedBytes: 7, totalBytes: Int64(transferBytes.count))
                _ = try await client.download(Report(), to: destination, resumingFrom: resume)
                #expect(try Data(contentsOf: destination) == Data(transferBytes))
                #expect(try String(decoding: Data(contentsOf: precious), as: UTF8.self) == "keep me")
                #expect(try FileManager.default.destinationOfSymbolicLink(atPath: planted.path) == precious.path, "the link is left as it was")
                #expect(server.recordedRequests.map { $0.header("Range") } == [nil], "the download started from byte 0")
                resume.discard()
                #expect(FileManager.default.fileExists(atPath: planted.path), "discard deletes no link")
            }
        }
    }

    /// A resume record naming a file outside the download's folder, or without a partial file's
    /// name, is refused: that file is left as it is, and the download starts from byte 0.
    @Test(arguments: TransportKind.allCases)
    func aResumeRecordNamingAnotherFileIsRefused(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("GET", "/report.bin") { request in .ranged(transferBytes, for: request, etag: Self.etag) }
            try await withFolder { folder in
                let destination = folder.appendingPathComponent("report.bin")
                let elsewhere = folder.appendingPathComponent("other")
                try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
                let others = [
                    elsewhere.appendingPathComponent(".report.bin.\(UUID().uuidString).download"),
                    folder.appendingPathComponent("notes.txt"),
                    folder.appendingPathComponent(".report.bin.old.download"),
                ]
                for (index, other) in others.enumerated() {
                    try Data(transferBytes.prefix(1000)).write(to: other)
                    let resume = ResumableDownload(partialFile: other, validator: Self.etag, completedBytes: 1000, totalBytes: nil)
                    _ = try await client.download(Report(), to: destination, resumingFrom: resume)
                    #expect(try Data(contentsOf: destination) == Data(transferBytes), "\(other.lastPathComponent)")
                    #expect(try Data(contentsOf: other) == Data(transferBytes.prefix(1000)), "\(other.lastPathComponent) is untouched")
                    #expect(server.recordedRequests.count == index + 1)
                    #expect(server.recordedRequests.last?.header("Range") == nil)
                }
            }
        }
    }

    @Test func aRangePastTheEndStartsOverWithTheWholeFile() async throws {
        try await withServer(.asyncHTTPClient) { server, client in
            let small = Array(transferBytes.prefix(1000))
            server.route("GET", "/report.bin") { request in .ranged(small, for: request, etag: Self.etag) }
            try await withFolder { folder in
                let destination = folder.appendingPathComponent("report.bin")
                // A partial file longer than the file now is: the server answers 416, the download starts over.
                let partial = folder.appendingPathComponent(".report.bin.\(UUID().uuidString).download")
                try Data(transferBytes.prefix(5000)).write(to: partial)
                let resume = ResumableDownload(partialFile: partial, validator: Self.etag, completedBytes: 5000, totalBytes: nil)
                _ = try await client.download(Report(), to: destination, resumingFrom: resume)
                #expect(try Data(contentsOf: destination) == Data(small))
                #expect(server.recordedRequests.map { $0.header("Range") } == ["bytes=5000-", nil])
            }
        }
    }
}
