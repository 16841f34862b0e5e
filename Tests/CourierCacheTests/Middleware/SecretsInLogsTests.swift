import Courier
import CourierAsyncHTTPClient
import CourierCache
import CourierTesting
import Foundation
import HTTPTypes
import Logging
import Testing

/// No log line of the client, its cache or its store holds a secret: the cache's own lines (a failed
/// background revalidation, a response it couldn't store) pass the URL and the error through the
/// client's secret list, as the client's `LoggingMiddleware` does.
@Suite struct SecretsInLogsTests {
    private struct Feed: Endpoint {
        typealias Response = JSON
        var path: EndpointPath { "/feed" }
        var query: Parameters { ["token": "SECRET-QUERY", "page": 1] }
    }

    @Test(arguments: CacheTransport.allCases)
    func aFailedRevalidationLogsNoSecret(transport: CacheTransport) async throws {
        let server = try await MockServer.start()
        defer { Task { try? await server.shutdown() } }
        let logs = LogRecorder()
        let store = InMemoryCacheStorage(maximumSize: 1 << 20)
        let clock = TestDate()
        let credentials = CredentialStore(.bearer("SECRET-TOKEN", identity: "u1", refreshToken: "SECRET-REFRESH"))
        let client = Client(
            baseURL: server.baseURL, transport: transport.make(),
            middlewares: [
                LoggingMiddleware(logger: logs.logger(level: .trace)), HTTPCache(storage: store, logger: logs.logger, now: { clock.now }),
                CredentialsMiddleware(provider: credentials),
            ]
        ) { $0.defaultHeaders[HTTPField.Name("X-Api-Key")!] = "SECRET-HEADER" }
        server.route("GET", "/feed", script: [
            .json(#"{"n":1}"#, headers: [MockHeader("Cache-Control", "max-age=1, stale-while-revalidate=60")]),
            MockResponse.json("{}").with(fault: .reset),
        ])
        _ = try await client.send(Feed(), cachePolicy: .followHTTP)
        clock.advance(by: 2)
        #expect(try await client.response(for: Feed(), cachePolicy: .followHTTP).source == .stale)
        await client.waitForBackgroundWork()
        let lines = logs.messages
        #expect(lines.contains { $0.contains("Background revalidation failed") && $0.contains("token=REDACTED") }, "\(lines)")
        #expect(lines.contains { $0.contains("courier.url") }, "the client's own log lines are there too")
        let leaking = lines.filter { $0.contains("SECRET") }
        #expect(leaking.isEmpty, "\(leaking)")
    }
}
