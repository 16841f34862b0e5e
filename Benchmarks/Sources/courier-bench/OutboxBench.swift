import ArgumentParser
import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import CourierOutbox
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The outbox's two costs, each beside a control measured in the same run: an enqueue (committed
/// with `synchronous = FULL`) against a bare `write` + `fsync` of the same folder, and a replay of
/// kept writes against nginx against the same writes sent with `client.send`.
struct OutboxBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox",
        abstract: "Enqueue latency (synchronous = FULL) and replay throughput against nginx, each with its control.")

    @Option(help: "Enqueues measured (median and worst reported).")
    var enqueues = 1_000

    @Option(help: "Writes replayed.")
    var replays = 1_000

    @Option(help: "Groups the replayed writes are spread over (items of a group go one at a time).")
    var groups = 8

    func run() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("courier-bench-outbox-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await BenchServer.start()
        defer { Task { await server.stop() } }
        let transport = AsyncHTTPClientTransport(client: HTTPClient.shared)
        // Nothing listens on port 9 of the loopback: the outbox's first sends fail at once and back
        // off (1 s and more), so enqueues are measured alone.
        let offline = Client(baseURL: URL(string: "http://127.0.0.1:9")!, transport: transport)
        let online = Client(baseURL: server.baseURL, transport: transport)
        let limits = Outbox.Limits(maximumItems: max(enqueues, replays) * 2, maximumBytes: 1 << 30)

        // 1. Enqueue latency, and its control: the same folder's write + fsync of a body's size.
        let kept = try Outbox(client: offline, folder: folder.appendingPathComponent("enqueue"), limits: limits)
        var enqueueTimes: [Double] = []
        var syncTimes: [Double] = []
        let probe = folder.appendingPathComponent("fsync-probe").path
        let descriptor = open(probe, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let bytes = [UInt8](try JSONEncoder().encode(Fixtures.note))
        for _ in 0 ..< enqueues {
            let start = ContinuousClock.now
            try await kept.enqueue(PostEndpoint())
            enqueueTimes.append((ContinuousClock.now - start).seconds * 1e6)
            let syncStart = ContinuousClock.now
            _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            fsync(descriptor)
            syncTimes.append((ContinuousClock.now - syncStart).seconds * 1e6)
        }
        close(descriptor)
        await kept.stop()

        // 2. Replay: writes kept while offline, then sent by a fresh outbox on the online client;
        //    the control sends as many with `client.send`, one group at a time in parallel as well.
        let replayFolder = folder.appendingPathComponent("replay")
        let offlineBox = try Outbox(client: offline, folder: replayFolder, limits: limits)
        for index in 0 ..< replays { try await offlineBox.enqueue(PostEndpoint(), group: "g\(index % groups)") }
        await offlineBox.stop()
        let replayBox = try Outbox(client: online, folder: replayFolder, limits: limits)
        let replayStart = ContinuousClock.now
        await replayBox.flush()
        let replayTime = (ContinuousClock.now - replayStart).seconds
        let left = try await replayBox.items().count
        await replayBox.stop()

        let perGroup = replays / groups
        let controlStart = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for _ in 0 ..< groups {
                tasks.addTask { for _ in 0 ..< perGroup { _ = try await online.send(PostEndpoint()) } }
            }
            try await tasks.waitForAll()
        }
        let controlTime = (ContinuousClock.now - controlStart).seconds

        print("server: \(server.kind)")
        print("enqueue (synchronous = FULL), \(enqueues) calls: median \(format(median(enqueueTimes))) µs, worst \(format(enqueueTimes.max() ?? 0)) µs")
        print("  control, write + fsync in the same folder: median \(format(median(syncTimes))) µs, worst \(format(syncTimes.max() ?? 0)) µs")
        print("  enqueue ÷ control (medians): \(String(format: "%.2f", median(enqueueTimes) / median(syncTimes)))×")
        print("replay of \(replays) writes in \(groups) groups: \(format(Double(replays) / replayTime)) writes/s (\(left) left)")
        print("  control, client.send of as many in \(groups) parallel loops: \(format(Double(perGroup * groups) / controlTime)) writes/s")
        print("  replay time ÷ control time: \(String(format: "%.2f", replayTime / (controlTime * Double(replays) / Double(perGroup * groups))))×")
    }

    private func format(_ value: Double) -> String { String(format: "%.0f", value) }
}
