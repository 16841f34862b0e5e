import CMallocCounter
import Courier
import Foundation

/// One micro-benchmark: the median time and allocations per operation over the rounds.
struct MicroResult: Codable, Sendable {
    var name: String
    var iterations: Int
    /// Process CPU time (user + system, all threads) per operation: other processes on the machine
    /// do not inflate it, unlike wall time.
    var nanosecondsPerOperation: Double
    var wallNanosecondsPerOperation: Double
    var allocationsPerOperation: Double
    var note: String?
}

/// A named operation timed in a loop.
struct MicroCase {
    var name: String
    var iterations: Int
    var operation: () async throws -> Void
}

/// Runs the cases interleaved round by round (so machine noise hits each alike) and keeps medians.
func runMicro(_ cases: [MicroCase], rounds: Int) async throws -> [MicroResult] {
    for item in cases { for _ in 0..<max(1, item.iterations / 10) { try await item.operation() } }
    var times = Array(repeating: [Double](), count: cases.count)
    var walls = Array(repeating: [Double](), count: cases.count)
    var allocations = Array(repeating: [Double](), count: cases.count)
    for round in 0..<rounds {
        let order = Array(cases.indices)
        for index in round % 2 == 0 ? order : order.reversed() {
            let item = cases[index]
            let startAllocations = cmc_allocations()
            let start = ContinuousClock.now
            let startCPU = cpuSeconds()
            for _ in 0..<item.iterations { try await item.operation() }
            let cpu = cpuSeconds() - startCPU
            let elapsed = start.duration(to: .now).seconds
            let allocated = Double(cmc_allocations() - startAllocations)
            times[index].append(cpu / Double(item.iterations) * 1e9)
            walls[index].append(elapsed / Double(item.iterations) * 1e9)
            allocations[index].append(allocated / Double(item.iterations))
        }
    }
    return cases.indices.map { index in
        MicroResult(
            name: cases[index].name, iterations: cases[index].iterations,
            nanosecondsPerOperation: median(times[index]), wallNanosecondsPerOperation: median(walls[index]),
            allocationsPerOperation: median(allocations[index])
        )
    }
}

/// The hot path without a network: request building, the middleware chain, decoding, error mapping.
func microCases(iterations: Int) throws -> [MicroCase] {
    guard let baseURL = URL(string: "http://127.0.0.1:8080") else { throw BenchError("bad base URL") }
    let empty = Data("{}".utf8)
    let plain = Client(baseURL: baseURL, transport: NoopTransport(body: empty))
    let chained = Client(
        baseURL: baseURL, transport: NoopTransport(body: empty), middlewares: Array(repeating: NoopMiddleware(), count: 5)
    )
    let large = Fixtures.large
    let smallClient = Client(baseURL: baseURL, transport: NoopTransport(body: Fixtures.small))
    let small = Fixtures.small
    let telemetryClient = Client(
        baseURL: baseURL, transport: NoopTransport(body: Fixtures.small),
        middlewares: [TelemetryMiddleware(), AttemptTelemetryMiddleware()]
    )
    let postClient = Client(baseURL: baseURL, transport: NoopTransport(body: Fixtures.postAnswer))
    let encoder = JSONEncoder()
    let largeClient = Client(baseURL: baseURL, transport: NoopTransport(body: large))
    let decoder = JSONDecoder()
    let notFound = Client(
        baseURL: baseURL, transport: NoopTransport(status: .notFound, body: Data(#"{"message":"no such user"}"#.utf8))
    )
    let timeoutError = URLError(.timedOut)
    let largeIterations = max(3, iterations / 2000)
    var counter = 0
    return [
        MicroCase(name: "call, no middleware", iterations: iterations) {
            _ = try await plain.send(RawEndpoint())
        },
        MicroCase(name: "call, 5 no-op middlewares", iterations: iterations) {
            _ = try await chained.send(RawEndpoint())
        },
        MicroCase(name: "small GET+decode: plain JSONDecoder", iterations: iterations) {
            _ = try decoder.decode(SmallUser.self, from: small)
        },
        MicroCase(name: "small GET+decode: Courier call over no-op transport", iterations: iterations) {
            counter &+= 1
            _ = try await smallClient.send(SmallEndpoint(n: counter))
        },
        MicroCase(name: "small GET+decode: Courier call with telemetry middlewares (no-op backends)", iterations: iterations) {
            counter &+= 1
            _ = try await telemetryClient.send(SmallEndpoint(n: counter))
        },
        // Apps start most calls in a task of their own (a view's `.task`, a button's `Task {}`); a new
        // task's async frames come from fresh task-allocator slabs, which a loop in one task reuses.
        MicroCase(name: "small GET+decode in a new task: plain JSONDecoder", iterations: iterations) {
            _ = try await newTask { try decoder.decode(SmallUser.self, from: small) }.value
        },
        MicroCase(name: "small GET+decode in a new task: Courier call", iterations: iterations) {
            counter &+= 1
            let n = counter
            _ = try await newTask { try await smallClient.send(SmallEndpoint(n: n)) }.value
        },
        MicroCase(name: "small POST: plain JSONEncoder + JSONDecoder", iterations: iterations) {
            _ = try decoder.decode(PostAnswer.self, from: withExtendedLifetime(try encoder.encode(Fixtures.note)) { Fixtures.postAnswer })
        },
        MicroCase(name: "small POST: Courier call over no-op transport", iterations: iterations) {
            _ = try await postClient.send(PostEndpoint())
        },
        MicroCase(name: "decode 1 MB: plain JSONDecoder", iterations: largeIterations) {
            _ = try decoder.decode([LargeItem].self, from: large)
        },
        MicroCase(name: "decode 1 MB: Courier call over no-op transport", iterations: largeIterations) {
            _ = try await largeClient.send(LargeEndpoint())
        },
        MicroCase(name: "error mapping: URLError → CourierError", iterations: iterations) {
            _ = CourierError.from(transportError: timeoutError)
        },
        MicroCase(name: "error path: 404 + JSON message → CourierError", iterations: iterations) {
            do {
                _ = try await notFound.send(RawEndpoint())
            } catch {
                guard (error as? CourierError)?.kind == .server else { throw BenchError("expected a server error, got \(error)") }
            }
        },
    ] + (try cacheMicroCases(iterations: iterations))
}

/// Derived figures from the micro results (figures to read: no guard rail is measured here).
func microFigures(_ results: [MicroResult]) -> (lines: [String], checks: [TargetCheck]) {
    func find(_ prefix: String) -> MicroResult? { results.first { $0.name.hasPrefix(prefix) } }
    var lines: [String] = []
    let checks: [TargetCheck] = []
    if let plain = find("call, no middleware"), let chained = find("call, 5 no-op") {
        let nanoseconds = chained.nanosecondsPerOperation - plain.nanosecondsPerOperation
        let allocations = chained.allocationsPerOperation - plain.allocationsPerOperation
        lines.append(String(format: "5-middleware chain over the chain-less call: %+.0f ns CPU, %+.1f allocations per request", nanoseconds, allocations))
    }
    if let plain = find("small GET+decode: plain"), let courier = find("small GET+decode: Courier") {
        lines.append(String(format: "Courier's pipeline around a small GET+decode: %+.0f ns CPU, %+.1f allocations per request",
            courier.nanosecondsPerOperation - plain.nanosecondsPerOperation, courier.allocationsPerOperation - plain.allocationsPerOperation))
    }
    if let plain = find("small GET+decode in a new task: plain"), let courier = find("small GET+decode in a new task: Courier") {
        lines.append(String(format: "Courier's pipeline around a small GET+decode, each call in a new task: %+.0f ns CPU, %+.1f allocations per request",
            courier.nanosecondsPerOperation - plain.nanosecondsPerOperation, courier.allocationsPerOperation - plain.allocationsPerOperation))
    }
    if let plain = find("small POST: plain"), let courier = find("small POST: Courier") {
        lines.append(String(format: "Courier's pipeline around a small POST (encode + decode): %+.0f ns CPU, %+.1f allocations per request",
            courier.nanosecondsPerOperation - plain.nanosecondsPerOperation, courier.allocationsPerOperation - plain.allocationsPerOperation))
    }
    if let plain = find("decode 1 MB: plain"), let courier = find("decode 1 MB: Courier") {
        let ratio = courier.nanosecondsPerOperation / plain.nanosecondsPerOperation
        lines.append(String(format: "1 MB decode through Courier: %.3f× plain JSONDecoder", ratio))
    }
    return (lines, checks)
}

func microTable(_ results: [MicroResult]) -> String {
    let nameWidth = results.map(\.name.count).max() ?? 10
    var lines = [
        "micro-benchmark".padding(toLength: nameWidth, withPad: " ", startingAt: 0) + " CPU ns/op  wall ns/op   allocs/op",
        String(repeating: "-", count: nameWidth + 35),
    ]
    for result in results {
        let time = String(format: "%10.0f %10.0f", result.nanosecondsPerOperation, result.wallNanosecondsPerOperation)
        let allocations = String(format: "%11.1f", result.allocationsPerOperation)
        lines.append(result.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + time + " " + allocations)
    }
    return lines.joined(separator: "\n")
}

func microMarkdown(_ results: [MicroResult]) -> String {
    var lines = ["| micro-benchmark | CPU ns/op | wall ns/op | allocs/op |", "|---|--:|--:|--:|"]
    for result in results {
        lines.append(
            "| \(result.name) | \(String(format: "%.0f", result.nanosecondsPerOperation)) "
                + "| \(String(format: "%.0f", result.wallNanosecondsPerOperation)) | \(String(format: "%.1f", result.allocationsPerOperation)) |"
        )
    }
    return lines.joined(separator: "\n")
}

/// Starts `operation` in a new task that runs on the calling thread up to its first suspension
/// where the runtime has `Task.immediate` (Swift 6.2), else like any other task.
private func newTask<Success: Sendable>(_ operation: @escaping @Sendable () async throws -> Success) -> Task<Success, any Error> {
    #if compiler(>=6.2)
    if #available(macOS 26.0, *) { return Task.immediate(operation: operation) }
    #endif
    return Task(operation: operation)
}
