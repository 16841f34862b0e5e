import Courier
import CourierCache
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// In a generated client's chain each Courier step gives the steps below it a report of its own,
/// so two calls made at once under one context never read each other's facts: a cache that learns
/// "sent with credentials" from the step below can't file one call's credentialed answer as
/// anonymous because the other call's report said "none".
@Suite struct ReportIsolationTests {
    @Test func twoCallsAtOnceUnderOneContextNeverShareAFact() async throws {
        let baseURL = try #require(URL(string: "https://api.example.com"))
        let cache = HTTPCache(storage: InMemoryCacheStorage(maximumSize: 50 << 20))
        let credentials = CredentialStore(.bearer("token-of-alice", identity: "alice"))
        // Below the cache: credentials for /private (a Courier step, which reports them), none for /public.
        let signer = CredentialsMiddleware(provider: credentials)
        let context = RequestContext(endpoint: "feed", cachePolicy: .followHTTP, isIdempotent: true, timeout: .seconds(10))
        @Sendable func transport(_ request: HTTPRequest, _: HTTPBody?, _: URL) async throws -> (HTTPResponse, HTTPBody?) {
            await Task.yield()
            recordSend(of: request)
            return (HTTPResponse(status: .ok, headerFields: [.cacheControl: "max-age=600"]), HTTPBody("for \(request.path ?? "")"))
        }
        @Sendable func call(_ path: String) async throws {
            let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: path)
            let (_, body) = try await cache.intercept(request, body: nil, baseURL: baseURL, operationID: "feed") { request, body, baseURL in
                if path.hasPrefix("/private") {
                    return try await signer.intercept(request, body: body, baseURL: baseURL, operationID: "feed", next: transport)
                }
                await Task.yield()
                return try await transport(request, body, baseURL)
            }
            if let body { _ = try await String(collecting: body, upTo: 1 << 10) }
        }
        try await RequestContext.$current.withValue(context) {
            for round in 0..<200 {
                async let credentialed: Void = call("/private/\(round)")
                async let anonymous: Void = call("/public/\(round)")
                _ = try await (credentialed, anonymous)
            }
        }
        await cache.flush()
        let stored = try await cache.entries().map(\.url)
        #expect(stored.count == 200 && stored.allSatisfy { $0.path.hasPrefix("/public/") }, "a credentialed answer was filed as anonymous")
    }
}
