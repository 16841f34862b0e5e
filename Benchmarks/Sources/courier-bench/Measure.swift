import CMallocCounter
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Process-wide counters read before and after a measured block.
struct Counters {
    var wall: ContinuousClock.Instant
    var cpu: Double  // seconds, user + system, all threads of this process
    var allocations: UInt64
    var contextSwitches: Int  // voluntary + involuntary, all threads of this process

    static func now() -> Counters {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Counters(wall: .now, cpu: cpuSeconds(usage), allocations: cmc_allocations(), contextSwitches: usage.ru_nvcsw + usage.ru_nivcsw)
    }
}

/// One measured run of `requests` operations.
struct Sample: Codable, Sendable {
    var requests: Int
    var wallSeconds: Double
    var cpuSeconds: Double
    var allocations: Double
    var contextSwitches: Double
    var peakRSSBytes: Int

    /// Adds another block of the same round: times, requests and allocations sum, the RSS peak is the larger.
    mutating func add(_ other: Sample) {
        requests += other.requests
        wallSeconds += other.wallSeconds
        cpuSeconds += other.cpuSeconds
        allocations += other.allocations
        contextSwitches += other.contextSwitches
        peakRSSBytes = max(peakRSSBytes, other.peakRSSBytes)
    }

    var wallPerRequest: Double { wallSeconds / Double(requests) }
    var cpuPerRequest: Double { cpuSeconds / Double(requests) }
    var allocationsPerRequest: Double { allocations / Double(requests) }
    var contextSwitchesPerRequest: Double { contextSwitches / Double(requests) }
    var requestsPerSecond: Double { Double(requests) / wallSeconds }
}

/// Runs `body` once and measures wall time, CPU time, allocations and the RSS high-water mark.
func measure(requests: Int, _ body: () async throws -> Void) async throws -> Sample {
    resetPeakRSS()
    let start = Counters.now()
    try await body()
    let end = Counters.now()
    let wall = start.wall.duration(to: end.wall)
    return Sample(
        requests: requests,
        wallSeconds: wall.seconds,
        cpuSeconds: end.cpu - start.cpu,
        allocations: Double(end.allocations - start.allocations),
        contextSwitches: Double(end.contextSwitches - start.contextSwitches),
        peakRSSBytes: peakRSS()
    )
}

/// Whether the malloc counter is active (it is on Linux with glibc).
var allocationCountingWorks: Bool { cmc_counting_works() != 0 }

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return cpuSeconds(usage)
}

func cpuSeconds(_ usage: rusage) -> Double {
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Resets the kernel's RSS high-water mark for this process (Linux: `5` into /proc/self/clear_refs).
func resetPeakRSS() {
    let fd = open("/proc/self/clear_refs", O_WRONLY)
    guard fd >= 0 else { return }
    _ = write(fd, "5", 1)
    close(fd)
}

/// The RSS high-water mark since the last reset (VmHWM), or ru_maxrss where /proc is missing.
func peakRSS() -> Int {
    if let value = procStatus("VmHWM:") { return value }
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Int(usage.ru_maxrss) * 1024
}

/// The resident set size now (VmRSS).
func currentRSS() -> Int {
    procStatus("VmRSS:") ?? 0
}

private func procStatus(_ key: String) -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in text.split(separator: "\n") where line.hasPrefix(key) {
        let digits = line.dropFirst(key.count).filter(\.isNumber)
        return Int(digits).map { $0 * 1024 }
    }
    return nil
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// Runs `operation(index)` for `0..<count` with at most `width` in flight.
func runConcurrently(count: Int, width: Int, _ operation: @escaping @Sendable (Int) async throws -> Void) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        var next = 0
        while next < min(width, count) {
            let index = next
            group.addTask { try await operation(index) }
            next += 1
        }
        while try await group.next() != nil {
            if next < count {
                let index = next
                group.addTask { try await operation(index) }
                next += 1
            }
        }
    }
}
