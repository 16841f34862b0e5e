import Foundation

/// One macro scenario: what each subject does, how many times, and with how many in flight.
struct Scenario: Sendable {
    var id: String
    var title: String
    var requests: Int
    var width: Int
    var subjects: [Subject]
    var operation: @Sendable (Subject, Int) async throws -> Void
    /// Runs once before the warm-up (e.g. fills a cache).
    var prepare: (@Sendable () async throws -> Void)? = nil

    func run(_ subject: Subject, requests count: Int? = nil) async throws {
        try await run(subject, range: 0..<(count ?? requests))
    }

    /// Runs the operations numbered `range` (the number keeps URLs unique across blocks).
    func run(_ subject: Subject, range: Range<Int>) async throws {
        let operation = self.operation
        if width <= 1 {
            for index in range { try await operation(subject, index) }
        } else {
            try await runConcurrently(count: range.count, width: width) { index in try await operation(subject, range.lowerBound + index) }
        }
        // Inside the measurement: what the subject left running is its own cost, not the next subject's.
        await subject.finishBackgroundWork?()
    }
}

/// The options that size the macro scenarios.
struct MacroSizes {
    var requests: Int
    var concurrency: Int
    var largeRequests: Int
    var postRequests: Int
    var cacheRequests: Int
    /// Whether a second, identical raw AHC runs beside the first (an A/A check of the bench).
    var control = false
    /// Whether the small-GET scenarios also run the partial Courier stacks of ``Breakdown``.
    var breakdown = false
    /// Whether the small-GET scenarios also run Courier with the telemetry middlewares (no-op backends).
    var telemetry = false
}

func macroScenarios(_ subjects: Subjects, sizes: MacroSizes) -> [Scenario] {
    let all = subjects.all(control: sizes.control)
    let smallGET = subjects.all(control: sizes.control, breakdown: sizes.breakdown, telemetry: sizes.telemetry)
    let rawAHC = [subjects.rawAHC] + (sizes.control ? [subjects.rawAHCControl] : [])
    return [
        Scenario(
            id: "sequential", title: "\(sizes.requests) sequential GET+decode (236 B)", requests: sizes.requests, width: 1,
            subjects: smallGET, operation: { subject, index in try await subject.getSmall(index) }
        ),
        Scenario(
            id: "concurrent", title: "\(sizes.requests) GET+decode, \(sizes.concurrency) in flight", requests: sizes.requests,
            width: sizes.concurrency, subjects: smallGET, operation: { subject, index in try await subject.getSmall(index) }
        ),
        Scenario(
            id: "large", title: "GET+decode 1 MB JSON array (×\(sizes.largeRequests))", requests: sizes.largeRequests, width: 1,
            subjects: all, operation: { subject, _ in try await subject.getLarge() }
        ),
        Scenario(
            id: "post", title: "POST JSON body (×\(sizes.postRequests))", requests: sizes.postRequests, width: 1,
            subjects: all, operation: { subject, _ in try await subject.post() }
        ),
        Scenario(
            id: "cache", title: "2 KB cache hit (one URL) vs network (×\(sizes.cacheRequests))",
            requests: sizes.cacheRequests, width: 1,
            subjects: rawAHC + [subjects.courierCache], operation: { subject, _ in try await subject.getCached() }
        ),
        Scenario(
            id: "cache-store",
            title: "2 KB cache hit from the store, \(Subjects.storeKeys) distinct URLs vs network (×\(sizes.cacheRequests))",
            requests: sizes.cacheRequests, width: 1,
            subjects: rawAHC + [subjects.courierStoreHit],
            operation: { subject, index in try await subject.getFeed("k", spreadKey(index)) },
            prepare: { try await subjects.fillStore(log: log) }
        ),
        Scenario(
            id: "cache-miss", title: "2 KB miss + store, a new URL each call, vs the call without cache (×\(sizes.cacheRequests))",
            requests: sizes.cacheRequests, width: 1,
            subjects: rawAHC + [subjects.courierAHC, subjects.courierMissNotStored, subjects.courierMissAndStore],
            operation: { subject, _ in try await subject.getFeed("m", missCounter.next()) }
        ),
        Scenario(
            id: "cache-bytes", title: "2 KB cache hit (one URL) vs network, bytes only (×\(sizes.cacheRequests))",
            requests: sizes.cacheRequests, width: 1,
            subjects: rawAHC + [subjects.courierCache], operation: { subject, _ in try await subject.getCachedBytes() }
        ),
    ]
}

/// Numbers for the miss scenario: unique across subjects, blocks and rounds, so no call repeats a URL.
let missCounter = Counter()

// @unchecked: `value` is only read and written while `lock` is held.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}
