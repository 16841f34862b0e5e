import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// A write retried only with an `Idempotency-Key` that stays the same across its attempts, over both transports.
@Suite struct IdempotencyKeyTests {
    private struct PlaceOrder: Endpoint {
        typealias Response = Item
        var idempotencyKey: IdempotencyKey?
        var method: HTTPRequest.Method { .post }
        var path: EndpointPath { "/orders" }
        var body: RequestBody? { .json(Item(id: 1, title: "order")) }
    }

    private func client(_ kind: TransportKind, _ server: MockServer) -> Client {
        let policy = RetryPolicy(maximumAttempts: 3, baseDelay: .milliseconds(1), totalDeadline: .seconds(600))
        return Client(baseURL: server.baseURL, transport: kind.make(), middlewares: [RetryMiddleware(policy: policy)]) {
            $0.timeout = .seconds(300)
        }
    }

    private static let flaky: [MockResponse] = [.status(503), .status(503), .json(Item(id: 1, title: "placed"), status: 201)]

    @Test(arguments: TransportKind.allCases)
    func aGeneratedKeyIsTheSameOnEveryAttempt(kind: TransportKind) async throws {
        try await withServer { server in
            server.route("POST", "/orders", script: Self.flaky)
            let client = client(kind, server)
            let response = try await client.response(for: PlaceOrder(idempotencyKey: .generated))
            #expect(response.value.title == "placed")
            #expect(response.attempts == 3)
            let keys = server.recordedRequests.map { $0.header("Idempotency-Key") }
            #expect(keys.count == 3)
            let key = try #require(keys.first ?? nil)
            #expect(keys.allSatisfy { $0 == key }, "\(keys)")
            #expect(key.hasPrefix("\"") && key.hasSuffix("\""), "a structured-field string, as the draft writes it")
            #expect(UUID(uuidString: String(key.dropFirst().dropLast())) != nil)
            let bodies = server.recordedRequests.map(\.bodyText)
            #expect(bodies.allSatisfy { $0 == bodies.first && $0.contains(#""title":"order""#) }, "\(bodies)")

            // Another call gets another key.
            server.route("POST", "/orders", respond: .json(Item(id: 2, title: "placed"), status: 201))
            _ = try await client.send(PlaceOrder(idempotencyKey: .generated))
            #expect(server.lastRequest?.header("Idempotency-Key") != key)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func theEndpointsOwnKeyIsSentAsGiven(kind: TransportKind) async throws {
        try await withServer { server in
            server.route("POST", "/orders", script: Self.flaky)
            _ = try await client(kind, server).send(PlaceOrder(idempotencyKey: .custom("order-1234")))
            #expect(server.recordedRequests.map { $0.header("Idempotency-Key") } == ["order-1234", "order-1234", "order-1234"])
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aWriteWithoutAKeyIsNeitherKeyedNorRetried(kind: TransportKind) async throws {
        try await withServer { server in
            server.route("POST", "/orders", script: Self.flaky)
            let error = await #expect(throws: CourierError.self) { try await client(kind, server).send(PlaceOrder()) }
            #expect(error?.status == .serviceUnavailable)
            #expect(server.recordedRequests.count == 1)
            #expect(server.lastRequest?.header("Idempotency-Key") == nil)
        }
    }
}
