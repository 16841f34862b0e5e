#if os(Linux) || os(macOS)
import Courier
import CourierOutbox
import CourierTestSupport
import CourierTesting
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An app killed with SIGKILL at each point of an item's life (after `enqueue` returned, while the
/// item is at the server, after the server answered but before the removal) loses no item, and a
/// fresh process sends each again with the same `Idempotency-Key`: a server that honours keys
/// applies every write once.
@Suite(.serialized, .timeLimit(.minutes(10))) struct OutboxCrashTests {
    /// Writes each run enqueues; the kill point moves over them from run to run.
    static let items = 4
    /// Runs per kill point and transport (`COURIER_OUTBOX_CRASH_RUNS` for more).
    static let runs = ProcessInfo.processInfo.environment["COURIER_OUTBOX_CRASH_RUNS"].flatMap(Int.init) ?? 3

    static let peer = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("courier-outbox-peer").path

    /// What the server saw of each write: the keys it came with, once per request.
    final class Ledger: Sendable {
        let keys = Locked<[Int: [String]]>([:])

        func record(_ request: RecordedRequest) {
            guard let number = Int(request.bodyText.dropFirst("write-".count)) else { return }
            keys.withLock { $0[number, default: []].append(request.header("Idempotency-Key") ?? "") }
        }

        func received(_ number: Int) -> Bool { keys.current[number] != nil }
    }

    @Test(arguments: Transport.allCases)
    func noWriteIsLostOrAppliedTwiceWhereverTheAppIsKilled(_ transport: Transport) async throws {
        var rows: [String] = []
        for stop in OutboxCrash.Stop.allCases {
            var totals = (sent: 0, applied: 0, lost: 0, duplicated: 0)
            for run in 0 ..< Self.runs {
                let outcome = try await Self.run(transport, stop: stop, at: run % Self.items)
                totals.sent += outcome.sent
                totals.applied += outcome.applied
                totals.lost += outcome.lost
                totals.duplicated += outcome.duplicated
                #expect(outcome.lost == 0, "\(stop) at write \(run % Self.items): \(outcome.lost) lost")
                #expect(outcome.duplicated == 0, "\(stop) at write \(run % Self.items): \(outcome.duplicated) duplicated")
                // Writes enqueued after the last line the test read before the kill may be there too.
                #expect(outcome.applied >= outcome.confirmed, "\(stop) at write \(run % Self.items)")
            }
            rows.append("| \(transport.rawValue) | \(stop.rawValue) | \(Self.runs) | \(totals.sent) | \(totals.applied) | \(totals.lost) | \(totals.duplicated) |")
        }
        print((["| transport | kill point | runs | requests sent | writes applied | lost | duplicated |", "|---|---|---|---|---|---|---|"] + rows)
            .joined(separator: "\n"))
    }

    /// One run: a peer enqueues, is killed at `stop` on write `target`, a second peer finishes.
    static func run(
        _ transport: Transport, stop: OutboxCrash.Stop, at target: Int
    ) async throws -> (sent: Int, applied: Int, lost: Int, duplicated: Int, confirmed: Int) {
        let ledger = Ledger()
        return try await withServer { server in
            server.route("POST", "/writes") { request in
                ledger.record(request)
                // Long enough for the test to kill the peer while the write is here.
                try? await Task.sleep(for: .milliseconds(stop == .whileSending ? 400 : 20))
                return .status(201)
            }
            return try await withFolder { folder in
                let first = folder.appendingPathComponent("first.out").path
                let second = folder.appendingPathComponent("second.out").path
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                let outbox = folder.appendingPathComponent("outbox").path
                let origin = server.baseURL.absoluteString
                let peer = try ChildProcess(
                    Self.peer, [origin, outbox, transport.rawValue, "enqueue", "\(items)", stop.rawValue, "\(target)"], output: first)
                let reached: Bool
                switch stop {
                case .afterEnqueue: reached = await Self.wait { Self.lines(first).contains("enqueued \(target)") }
                case .whileSending: reached = await Self.wait { ledger.received(target) }
                case .afterAnswer: reached = await Self.wait { Self.lines(first).contains("answered \(target)") }
                }
                kill(peer.pid, SIGKILL)
                _ = await peer.exitCode()
                #expect(reached, "the peer never reached \(stop) at write \(target): \(Self.lines(first))")
                let confirmed = Self.lines(first).filter { $0.hasPrefix("enqueued ") }.count

                let finisher = try ChildProcess(Self.peer, [origin, outbox, transport.rawValue, "resume"], output: second)
                // A peer that never ends fails the run (its code is then a signal's) instead of hanging it.
                let watchdog = Task {
                    try await Task.sleep(for: .seconds(120))
                    kill(finisher.pid, SIGKILL)
                }
                let code = await finisher.exitCode()
                watchdog.cancel()
                #expect(code == 0 && Self.lines(second) == ["done"], "the second peer: \(String(describing: code)) \(Self.lines(second))")

                let keys = ledger.keys.current
                let sent = keys.values.map(\.count).reduce(0, +)
                let applied = Set(keys.values.flatMap { $0 }).count
                let lost = (0 ..< confirmed).filter { keys[$0] == nil }.count
                let duplicated = keys.values.filter { Set($0).count > 1 }.count
                return (sent, applied, lost, duplicated, confirmed)
            }
        }
    }

    static func lines(_ path: String) -> [String] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// Polls `condition` every 5 ms for up to 60 s.
    static func wait(_ condition: () -> Bool) async -> Bool {
        for _ in 0 ..< 12_000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return false
    }
}
#endif
