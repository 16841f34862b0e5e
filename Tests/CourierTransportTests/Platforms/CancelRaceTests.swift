import Courier
import CourierTestSupport
import CourierTesting
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import OpenAPIRuntime
import Testing

/// A cancel that races a task's end, thousands of times per transport: a caller's cancel, a
/// deadline, a reader that leaves a streamed body, each against an answer arriving. On Linux,
/// FoundationNetworking once left such a call waiting forever and can trap the process ("Trying to
/// access the behaviour for a task that's not in the registry", swift-corelibs-foundation #3296),
/// so the rounds run in a process of their own (this test binary again): a trap fails this test
/// only, and a hang ends at a bound with the round it stopped at.
@Suite struct CancelRaceTests {
    static let rounds = 2_000
    static let answerBound = Duration.seconds(10)
    static var isChild: Bool { ProcessInfo.processInfo.environment["COURIER_CANCEL_RACE"] == "child" }

    @Test(.enabled(if: ChildProcess.canRunATest && !isChild))
    func aCancelRacingATasksEndNeitherHangsNorTraps() async throws {
        // The child bounds each wait itself; this is the bound on the whole, should it stop answering.
        let (code, output) = try await ChildProcess.runTest(
            "CancelRaceTests/theRacesInAProcessOfTheirOwn", environment: ["COURIER_CANCEL_RACE": "child"], bound: .seconds(300))
        let report = output.split(separator: "\n").filter { $0.hasPrefix("cancel race:") }
        print(report.joined(separator: "\n"))
        #expect(code == 0, "the child ended with \(code.map { "exit code \($0)" } ?? "a signal"), after: \(report.last ?? "nothing")")
        #expect(report.filter { $0.contains("rounds") }.count == 6, "every transport ran every race")
        #expect(!report.contains { $0.contains("hung") })
    }

    /// The rounds themselves; run only as the child of the test above.
    @Test(.enabled(if: isChild))
    func theRacesInAProcessOfTheirOwn() async throws {
        let server = try await MockServer.start()
        server.route("GET", "/item") { _ in .json(#"{"id":1,"title":"ok"}"#) }
        server.route("GET", "/late") { _ in
            .json(#"{"id":1,"title":"ok"}"#).with(fault: .delayHeaders(.microseconds(Int.random(in: 0...3_000))))
        }
        server.route("GET", "/stream") { _ in
            .bytes([UInt8](repeating: 7, count: Int.random(in: 1...(256 << 10))), contentType: "application/octet-stream")
        }
        for kind in TransportKind.allCases {
            let client = Client(baseURL: server.baseURL, transport: kind.make()) { $0.timeout = .seconds(5) }
            var slowest = Duration.zero, outcomes = [String: Int]()
            for round in 0..<Self.rounds {
                let call = Task { try await client.send(Call<Item>(path: "/item")) }
                try await Task.sleep(for: .microseconds(Int.random(in: 0...2_000)))
                let cancelled = ContinuousClock.now
                call.cancel()
                let (answered, outcome) = await Self.answer(of: call, round: round, race: "\(kind) caller cancel")
                slowest = max(slowest, answered - cancelled)
                outcomes[outcome, default: 0] += 1
            }
            ChildProcess.say("cancel race: \(kind) caller cancel, \(Self.rounds) rounds, slowest answer to a cancel \(slowest), \(outcomes.sorted { $0.key < $1.key })")

            var latest = Duration.zero
            outcomes = [:]
            let deadline = Duration.milliseconds(2)
            for round in 0..<Self.rounds {
                let started = ContinuousClock.now
                let call = Task { try await client.send(Call<Item>(path: "/late", timeout: deadline)) }
                let (answered, outcome) = await Self.answer(of: call, round: round, race: "\(kind) deadline")
                latest = max(latest, answered - started - deadline)
                outcomes[outcome, default: 0] += 1
            }
            ChildProcess.say("cancel race: \(kind) deadline, \(Self.rounds) rounds, latest answer past a 2 ms deadline \(latest), \(outcomes.sorted { $0.key < $1.key })")

            outcomes = [:]
            for round in 0..<Self.rounds {
                let call = Task {
                    let body = try await client.bytes(for: Call<Item>(path: "/stream")).value
                    // The reader leaves after a chunk or none, about when the last bytes arrive.
                    if Bool.random() { for try await _ in body { break } }
                    try await Task.sleep(for: .microseconds(Int.random(in: 0...1_000)))
                    return Item(id: 0, title: "left")
                }
                let (_, outcome) = await Self.answer(of: call, round: round, race: "\(kind) reader leaves")
                outcomes[outcome, default: 0] += 1
            }
            ChildProcess.say("cancel race: \(kind) reader leaves, \(Self.rounds) rounds, \(outcomes.sorted { $0.key < $1.key })")
        }
        try await server.shutdown()
    }

    /// When `call` answered and how; a call not answered within ``answerBound`` ends the process
    /// with the round it hung at.
    static func answer(of call: Task<Item, any Error>, round: Int, race: String) async -> (ContinuousClock.Instant, String) {
        let watchdog = Task {
            try await Task.sleep(for: answerBound)
            ChildProcess.say("cancel race: \(race) hung at round \(round), no answer after \(answerBound)")
            exit(1)
        }
        defer { watchdog.cancel() }
        do {
            _ = try await call.value
            return (.now, "answered")
        } catch let error as CourierError {
            return (.now, error.kind.identifier)
        } catch {
            return (.now, "untyped \(type(of: error))")
        }
    }
}
