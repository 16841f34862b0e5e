import Courier
import CourierTestSupport
import CourierTesting
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// Downloads stream into a file that appears only when whole; every failure leaves the folder as it was.
@Suite struct DownloadTests {
    private struct Report: Endpoint {
        typealias Response = Data
        var path: EndpointPath = "/report.bin"
        var timeout: Duration? = nil
    }


    @Test(arguments: TransportKind.allCases)
    func theBodyLandsInTheFileWithProgressToTheEnd(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("GET", "/report.bin", respond: .bytes(transferBytes, contentType: "application/octet-stream"))
            try await withFolder { folder in
                let destination = folder.appendingPathComponent("report.bin")
                let updates = Locked<[TransferProgress]>([])
                let response = try await client.download(Report(), to: destination) { progress in updates.withLock { $0.append(progress) } }
                #expect(response.value == destination)
                #expect(response.head.status == .ok)
                #expect(response.bodySize == transferBytes.count)
                #expect(try Data(contentsOf: destination) == Data(transferBytes))
                #expect(try contents(of: folder) == ["report.bin"])
                let seen = updates.current
                #expect(seen.last == TransferProgress(completedBytes: Int64(transferBytes.count), totalBytes: Int64(transferBytes.count)))
                #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes })
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aDownloadIsNotBoundByTheSizeLimitForDecodedBodies(kind: TransportKind) async throws {
        try await withServer(kind, configure: { $0.maximumBodySize = 1 << 20 }) { server, client in
            server.route("GET", "/report.bin", respond: .bytes(transferBytes, contentType: "application/octet-stream"))
            try await withFolder { folder in
                let destination = folder.appendingPathComponent("report.bin")
                _ = try await client.download(Report(), to: destination)
                #expect(try Data(contentsOf: destination) == Data(transferBytes))
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func anErrorStatusKeepsTheFileThatWasThere(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("GET", "/report.bin", respond: .json(#"{"message":"No such report"}"#, status: 404))
            try await withFolder { folder in
                let destination = folder.appendingPathComponent("report.bin")
                try Data("last month's".utf8).write(to: destination)
                let error = await #expect(throws: CourierError.self) { try await client.download(Report(), to: destination) }
                #expect(error?.kind == .server)
                #expect(error?.serverMessage == "No such report")
                #expect(try Data(contentsOf: destination) == Data("last month's".utf8))
                #expect(try contents(of: folder) == ["report.bin"])
            }
        }
    }

    /// Bytes after the announced length belong to no response: the file ends at the length, and the
    /// next call succeeds although they wait on the connection it would reuse.
    @Test(arguments: TransportKind.allCases)
    func bytesPastTheContentLengthAreNotPartOfTheFile(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            let announced = transferBytes.count - 1000
            server.route("GET", "/report.bin", respond: .bytes(transferBytes, contentType: "application/octet-stream")
                .adding(header: "Content-Length", value: "\(announced)"))
            server.route("GET", "/items", respond: .json("[]"))
            try await withFolder { folder in
                let destination = folder.appendingPathComponent("report.bin")
                _ = try await client.download(Report(), to: destination)
                #expect(try Data(contentsOf: destination) == Data(transferBytes.prefix(announced)))
            }
            // Over URLSession the next GET meets the leftovers on the reused connection and is sent again.
            for _ in 0..<3 { _ = try await client.send(Call<[Item]>()) }
        }
    }

    /// A destination that is a folder is not replaced by the download.
    @Test(arguments: TransportKind.allCases)
    func aDestinationThatIsAFolderIsAFileErrorAndKeepsTheFolder(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("GET", "/report.bin", respond: .bytes(transferBytes, contentType: "application/octet-stream"))
            try await withFolder { folder in
                let destination = folder.appendingPathComponent("report.bin")
                try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: false)
                try Data("kept".utf8).write(to: destination.appendingPathComponent("inside.txt"))
                let error = await #expect(throws: CourierError.self) { try await client.download(Report(), to: destination) }
                #expect(error?.kind == .file)
                #expect(try Data(contentsOf: destination.appendingPathComponent("inside.txt")) == Data("kept".utf8))
                #expect(try contents(of: folder) == ["report.bin"])
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aConnectionCutMidBodyLeavesNoHalfFile(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("GET", "/report.bin", respond: .bytes(transferBytes, contentType: "application/octet-stream").with(fault: .closeMidBody(afterBytes: 1 << 20)))
            try await withFolder { folder in
                let destination = folder.appendingPathComponent("report.bin")
                let error = await #expect(throws: CourierError.self) { try await client.download(Report(), to: destination) }
                #expect(error?.kind == .connectionLost)
                let leftovers = try contents(of: folder)
                #expect(leftovers == [])
            }
        }
    }

    /// The server sends a first chunk and holds the rest until the test ends: the cancel comes
    /// once the client has bytes, and only the cancel can end the download.
    @Test(arguments: TransportKind.allCases)
    func aCancelledDownloadLeavesNoHalfFile(kind: TransportKind) async throws {
        let rest = Level()
        defer { rest.open() }
        try await withServer(kind) { server, client in
            let held = Fault.paced(chunkSize: 10_000) { chunk in
                if chunk >= 1 { await rest.wait() }
            }
            let body = MockResponse.bytes(Array(transferBytes.prefix(200_000)), contentType: "application/octet-stream")
            server.route("GET", "/report.bin", respond: body.with(fault: held))
            try await withFolder { folder in
                let destination = folder.appendingPathComponent("report.bin")
                let received = Level()
                let task = Task {
                    try await client.download(Report(), to: destination) { received.raise(to: Int($0.completedBytes)) }
                }
                #expect(await received.wait(until: 1, within: .seconds(120)))
                task.cancel()
                let error = await #expect(throws: CourierError.self) { try await task.value }
                #expect(error?.kind == .cancelled)
                let leftovers = try contents(of: folder)
                #expect(leftovers == [])
            }
        }
    }

    /// A download that lasts longer than its idle timeout but never goes quiet that long. The
    /// server paces itself by what the client received: each chunk goes 500 ms after the client
    /// reported the one before (or after 2 s, should that report have been throttled away), until
    /// the download has lasted 1.1 × its timeout; then the rest comes at once. The gaps the client
    /// sees stay far below its 45 s timeout, the whole above it. A gap is as long as the test
    /// process is starved: a sanitized build beside a busy suite on two cores once left more than
    /// 20 s between two chunks, so the timeout is long and the test runs beside the others.
    @Test(arguments: TransportKind.allCases)
    func aSlowButSteadyDownloadOutlivesItsTimeout(kind: TransportKind) async throws {
        let timeout = Duration.seconds(45), chunkSize = 2000
        let received = Level()
        let started = ContinuousClock.now
        let steady = Fault.paced(chunkSize: chunkSize) { chunk in
            guard chunk >= 1, ContinuousClock.now - started < timeout * 1.1 else { return }
            _ = await received.wait(until: (chunk - 1) * chunkSize + 1, within: .seconds(2))
            try? await Task.sleep(for: .milliseconds(500))
        }
        try await withServer(kind) { server, client in
            let bytes = Array(transferBytes.prefix(150 * chunkSize))
            server.route("GET", "/report.bin", respond: MockResponse.bytes(bytes, contentType: "application/octet-stream").with(fault: steady))
            try await withFolder { folder in
                let destination = folder.appendingPathComponent("report.bin")
                _ = try await client.download(Report(timeout: timeout), to: destination) { received.raise(to: Int($0.completedBytes)) }
                #expect(try Data(contentsOf: destination) == Data(bytes))
                // The premise: the download outlived its timeout (a slow machine only adds to this).
                #expect(ContinuousClock.now - started > timeout)
            }
        }
    }

    /// The body never comes within the test (120 s): the endpoint's 2 s idle timeout ends it.
    @Test(arguments: TransportKind.allCases)
    func aStalledDownloadTimesOutAfterItsIdleTimeout(kind: TransportKind) async throws {
        try await withServer(kind, configure: { $0.timeout = .seconds(300) }) { server, client in
            let stalled = MockResponse.bytes(Array(transferBytes.prefix(40_000)), contentType: "application/octet-stream")
            server.route("GET", "/report.bin", respond: stalled.with(fault: .delayBody(.seconds(120))))
            try await withFolder { folder in
                let destination = folder.appendingPathComponent("report.bin")
                let started = ContinuousClock.now
                let error = await #expect(throws: CourierError.self) { try await client.download(Report(timeout: .seconds(2)), to: destination) }
                #expect(error?.kind == .timedOut)
                // Half the stall: beyond any machine's slowness.
                #expect(ContinuousClock.now - started < .seconds(60))
                let leftovers = try contents(of: folder)
                #expect(leftovers == [])
            }
        }
    }

    @Test func aMissingFolderIsAFileError() async throws {
        try await withServer(.asyncHTTPClient) { server, client in
            server.route("GET", "/report.bin", respond: .bytes([1, 2, 3], contentType: "application/octet-stream"))
            let destination = FileManager.default.temporaryDirectory.appendingPathComponent("courier-missing-\(UUID().uuidString)/report.bin")
            let error = await #expect(throws: CourierError.self) { try await client.download(Report(), to: destination) }
            #expect(error?.kind == .file)
            #expect(!FileManager.default.fileExists(atPath: destination.deletingLastPathComponent().path))
        }
    }
}

#if os(Linux)
/// A download onto a full disk: a 1 MiB tmpfs, mounted for the test (it needs root, as CI has).
@Suite struct FullDiskTests {
    private struct Report: Endpoint {
        typealias Response = Data
        var path: EndpointPath = "/report.bin"
    }

    /// Mounts a 1 MiB tmpfs on `folder` (read-only if asked), with the system call: launching
    /// `mount` with Foundation's `Process` from parallel tests crashed Foundation.
    private static func mountTmpfs(on folder: URL, readOnly: Bool = false) -> Bool {
        Glibc.mount("tmpfs", folder.path, "tmpfs", readOnly ? UInt(MS_RDONLY) : 0, "size=1m") == 0
    }

    private static func unmount(_ folder: URL) {
        _ = Glibc.umount2(folder.path, 0)
    }

    private static let canMount = getuid() == 0

    @Test(.enabled(if: canMount, "mounting a tmpfs needs root"), arguments: TransportKind.allCases)
    func aFullDiskIsAFileErrorAndLeavesNothing(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("GET", "/report.bin", respond: .bytes(transferBytes, contentType: "application/octet-stream"))
            try await withFolder { folder in
                try #require(Self.mountTmpfs(on: folder))
                defer { Self.unmount(folder) }
                let error = await #expect(throws: CourierError.self) { try await client.download(Report(), to: folder.appendingPathComponent("report.bin")) }
                #expect(error?.kind == .file)
                let leftovers = try contents(of: folder)
                #expect(leftovers == [])
            }
        }
    }

    @Test(.enabled(if: canMount, "mounting a tmpfs needs root"))
    func aFolderThatCantBeWrittenIsAFileError() async throws {
        try await withServer(.asyncHTTPClient) { server, client in
            server.route("GET", "/report.bin", respond: .bytes([1, 2, 3], contentType: "application/octet-stream"))
            try await withFolder { folder in
                // Read-only even for root, unlike permission bits.
                try #require(Self.mountTmpfs(on: folder, readOnly: true))
                defer { Self.unmount(folder) }
                let error = await #expect(throws: CourierError.self) { try await client.download(Report(), to: folder.appendingPathComponent("report.bin")) }
                #expect(error?.kind == .file)
                #expect(server.recordedRequests.isEmpty)
            }
        }
    }
}
#endif
