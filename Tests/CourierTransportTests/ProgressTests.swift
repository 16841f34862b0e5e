import Courier
import CourierCallbacks
import CourierTestSupport
import CourierTesting
import Dispatch
import Foundation
import Testing

/// Progress for both directions: as a callback, an `AsyncSequence` and on the callback face;
/// throttled, never backwards, ending at the total.
@Suite struct ProgressTests {
    private struct Report: Endpoint {
        typealias Response = Data
        var path: EndpointPath = "/report.bin"
    }

    private static let total = Int64(transferBytes.count)

    /// Checks what a transfer reported: something, never backwards, the last at the total, and no
    /// more often than 20 a second (plus the last) over `elapsed`.
    private func expectWellFormed(_ seen: [TransferProgress], over elapsed: Duration) {
        #expect(!seen.isEmpty)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes })
        #expect(seen.last == TransferProgress(completedBytes: Self.total, totalBytes: Self.total))
        #expect(Double(seen.count) <= elapsed / .milliseconds(50) + 2)
    }

    @Test(arguments: TransportKind.allCases)
    func anUploadReportsTheBytesSent(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("PUT", "/upload", respond: .json("{}"))
            try await withFolder { folder in
                let file = folder.appendingPathComponent("photo.jpg")
                try Data(transferBytes).write(to: file)
                let seen = Locked<[TransferProgress]>([])
                let started = ContinuousClock.now
                _ = try await client.upload(Upload(body: .file(file))) { progress in seen.withLock { $0.append(progress) } }
                expectWellFormed(seen.current, over: ContinuousClock.now - started)
            }
            #expect(server.recordedRequests.first?.body == transferBytes)
        }
    }

    @Test func aRetriedUploadNeverReportsBackwards() async throws {
        let server = try await MockServer.start()
        defer { Task { try? await server.shutdown() } }
        server.route("PUT", "/upload", script: [.status(503), .json("{}")])
        let client = clientRetryingOnce(server)
        try await withFolder { folder in
            let file = folder.appendingPathComponent("photo.jpg")
            try Data(transferBytes).write(to: file)
            let updates = Locked<[TransferProgress]>([])
            let response = try await client.upload(Upload(body: .file(file))) { progress in updates.withLock { $0.append(progress) } }
            let seen = updates.current
            #expect(response.attempts == 2)
            #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes })
            #expect(seen.last?.completedBytes == Self.total)
        }
    }

    /// The way the Transfers article reads progress as a stream: an `AsyncStream` fed by the
    /// `progress` closure, the download in a task.
    @Test(arguments: TransportKind.allCases)
    func aDownloadsProgressReadsAsAnAsyncSequence(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("GET", "/report.bin", respond: .bytes(transferBytes, contentType: "application/octet-stream"))
            try await withFolder { folder in
                let destination = folder.appendingPathComponent("report.bin")
                let started = ContinuousClock.now
                let (updates, reporter) = AsyncStream.makeStream(of: TransferProgress.self, bufferingPolicy: .bufferingNewest(1))
                let transfer = Task {
                    defer { reporter.finish() }
                    return try await client.download(Report(), to: destination) { reporter.yield($0) }
                }
                var seen: [TransferProgress] = []
                for await progress in updates { seen.append(progress) }
                let file = try await transfer.value.value
                #expect(file == destination)
                expectWellFormed(seen, over: ContinuousClock.now - started)
                #expect(try Data(contentsOf: destination) == Data(transferBytes))
            }
        }
    }

    /// The server sends a first chunk and holds the rest until the test ends: the cancel comes
    /// with the first progress, and only the cancel can end the download.
    @Test func aCancelledDownloadFailsAsCancelled() async throws {
        let rest = Level()
        defer { rest.open() }
        try await withServer(.asyncHTTPClient) { server, client in
            let held = Fault.paced(chunkSize: 10_000) { chunk in
                if chunk >= 1 { await rest.wait() }
            }
            let body = MockResponse.bytes(Array(transferBytes.prefix(200_000)), contentType: "application/octet-stream")
            server.route("GET", "/report.bin", respond: body.with(fault: held))
            try await withFolder { folder in
                let started = Level()
                let transfer = Task {
                    try await client.download(Report(), to: folder.appendingPathComponent("report.bin")) { progress in
                        if progress.completedBytes > 0 { started.open() }
                    }
                }
                await started.wait()
                transfer.cancel()
                let error = await #expect(throws: CourierError.self) { try await transfer.value }
                #expect(error?.kind == .cancelled)
                let left = try contents(of: folder)
                #expect(left.isEmpty, "a cancelled download leaves no file: \(left)")
            }
        }
    }

    @Test func theCallbackFaceReportsProgressAndCompletesOnce() async throws {
        try await withServer(.asyncHTTPClient) { server, client in
            server.route("GET", "/report.bin", respond: .bytes(transferBytes, contentType: "application/octet-stream"))
            server.route("PUT", "/upload", respond: .json("{}"))
            try await withFolder { folder in
                let queue = DispatchQueue(label: "progress")
                let destination = folder.appendingPathComponent("report.bin")
                let downloaded = Locked<[TransferProgress]>([])
                let file: URL = try await withCheckedThrowingContinuation { continuation in
                    client.download(Report(), to: destination, queue: queue, progress: { p in downloaded.withLock { $0.append(p) } }) {
                        continuation.resume(with: $0)
                    }
                }
                #expect(file == destination)
                #expect(downloaded.current.last?.completedBytes == Self.total)

                let uploaded = Locked<[TransferProgress]>([])
                _ = try await withCheckedThrowingContinuation { continuation in
                    client.upload(Upload(body: .file(destination)), queue: queue, progress: { p in uploaded.withLock { $0.append(p) } }) {
                        continuation.resume(with: $0)
                    }
                }
                // The serial queue ran the progress before the completion.
                #expect(uploaded.current.last?.completedBytes == Self.total)
            }
        }
    }
}
