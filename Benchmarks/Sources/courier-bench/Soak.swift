import AsyncHTTPClient
import CMallocCounter
import Courier
import CourierAsyncHTTPClient
import Foundation

/// One RSS sample of the soak run.
struct SoakSample: Codable, Sendable {
    var requests: Int
    var rssBytes: Int
    /// Allocations not yet freed (malloc-family calls minus frees) — a leak shows here first.
    var liveAllocations: Int64
}

struct SoakReport: Codable, Sendable {
    var date: String
    var server: String
    var subject: String
    var requests: Int
    var concurrency: Int
    var samples: [SoakSample]
    var growthAfterWarmupBytes: Int
    var liveAllocationGrowthAfterWarmup: Int64
    var flat: Bool
}

/// Sends `total` GETs through Courier over AHC, sampling RSS every `every` requests. Memory counts as
/// flat when, from the second sample on, RSS grows by less than max(2 MB, 5 %) and live allocations
/// by less than one per 1,000 requests.
func runSoak(
    server: BenchServer, total: Int, every: Int, concurrency: Int, subject: String, log: (String) -> Void
) async throws -> SoakReport {
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool.retryConnectionEstablishment = false
    let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    let client = Client(baseURL: server.baseURL, transport: AsyncHTTPClientTransport(client: http))
    let raw = RawAHC(client: http, base: server.baseURL.absoluteString)
    let noop = Client(baseURL: server.baseURL, transport: NoopTransport(body: Fixtures.small))
    let noopShortTimeout = Client(baseURL: server.baseURL, transport: NoopTransport(body: Fixtures.small)) { $0.timeout = .seconds(1) }
    // A cache policy other than `withoutCache` sends every GET through in-flight coalescing.
    let coalescing = Client(baseURL: server.baseURL, transport: AsyncHTTPClientTransport(client: http)) { $0.cachePolicy = .followHTTP }
    let send: @Sendable (Int) async throws -> Void
    switch subject {
    case "raw-ahc": send = { n in _ = try await raw.get("/small.json?n=\(n)", as: SmallUser.self) }
    case "courier-noop-1s-timeout": send = { n in _ = try await noopShortTimeout.send(SmallEndpoint(n: n)) }
    case "courier-coalescing": send = { n in _ = try await coalescing.send(SmallEndpoint(n: n)) }
    case "courier-noop": send = { n in _ = try await noop.send(SmallEndpoint(n: n)) }
    case "ahc-transport": send = Breakdown.ahcTransport(http: http, baseURL: server.baseURL).getSmall
    default: send = { n in _ = try await client.send(SmallEndpoint(n: n)) }
    }
    var samples: [SoakSample] = []
    do {
        var sent = 0
        while sent < total {
            let batch = min(every, total - sent)
            let offset = sent
            try await runConcurrently(count: batch, width: concurrency) { index in try await send(offset + index) }
            sent += batch
            let sample = SoakSample(
                requests: sent, rssBytes: currentRSS(), liveAllocations: Int64(cmc_allocations()) - Int64(cmc_frees())
            )
            samples.append(sample)
            log(String(format: "  %7d requests  RSS %6.1f MB  live allocations %lld", sent, Double(sample.rssBytes) / 1_048_576, sample.liveAllocations))
        }
    } catch {
        try? await http.shutdown()
        throw error
    }
    try await http.shutdown()
    let warm = samples.count > 1 ? samples[1] : samples[0]
    let last = samples[samples.count - 1]
    let growth = last.rssBytes - warm.rssBytes
    let liveGrowth = last.liveAllocations - warm.liveAllocations
    let flat = growth < max(2 << 20, warm.rssBytes / 20) && liveGrowth < Int64(max(1, (last.requests - warm.requests) / 1000))
    return SoakReport(
        date: isoDate(), server: server.kind, subject: subject, requests: total, concurrency: concurrency, samples: samples,
        growthAfterWarmupBytes: growth, liveAllocationGrowthAfterWarmup: liveGrowth, flat: flat
    )
}
