import Courier
import CourierAsyncHTTPClient
import CourierCache
import CourierTestSupport
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// Callers that miss one key at once (a popular entry that just expired) cost the origin one
/// request: one goes, the others wait for its answer to be stored. Keyed by the cache key, so
/// requests that differ only in a request id share it; an answer the cache may not store is not
/// shared, and each caller goes itself. Over both transports.
@Suite struct SharedMissTests {
    private struct Popular: Endpoint {
        typealias Response = JSON
        var requestID: Int
        var path: EndpointPath { "/feed" }
        var cachePolicy: CachePolicy? { .followHTTP }
        var headers: HTTPFields { [HTTPField.Name("X-Request-Id")!: "request-\(requestID)"] }
    }

    /// Eight callers, each with a request id of its own, against an origin that takes 400 ms.
    private func herd(_ transport: CacheTransport, cacheControl: String) async throws -> (origin: Int, answers: [Int]) {
        let fixture = try await CacheFixture.make(transport: transport.make())
        defer { Task { await fixture.tearDown() } }
        let served = Locked(0)
        fixture.server.route("GET", "/feed") { _ in
            let n = served.withLock { value -> Int in
                value += 1
                return value
            }
            try? await Task.sleep(for: .milliseconds(400))
            return .json(#"{"n":\#(n)}"#, headers: [MockHeader("Cache-Control", cacheControl)])
        }
        let answers = try await withThrowingTaskGroup(of: Int.self) { group in
            for id in 0..<8 {
                group.addTask { try await fixture.client.send(Popular(requestID: id))["n"]?.int ?? 0 }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        return (fixture.server.requestCount("/feed"), answers)
    }

    @Test(arguments: CacheTransport.allCases)
    func eightCallersMissingOneKeyCostTheOriginOneRequest(transport: CacheTransport) async throws {
        let (origin, answers) = try await herd(transport, cacheControl: "max-age=60")
        #expect(origin == 1)
        #expect(answers == Array(repeating: 1, count: 8))
    }

    @Test(arguments: CacheTransport.allCases)
    func anAnswerTheCacheMayNotStoreIsNotShared(transport: CacheTransport) async throws {
        let (origin, answers) = try await herd(transport, cacheControl: "no-store")
        #expect(origin == 8)
        #expect(Set(answers) == Set(1...8))
    }
}
