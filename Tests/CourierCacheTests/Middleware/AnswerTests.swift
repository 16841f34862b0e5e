import Courier
import CourierCache
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// Where an answer came from travels back up the chain in the answer itself: to the middleware
/// above the cache, to an app's own `ClientMiddleware` (through the context's report), and to a
/// generated client's caller (through the context it set).
///
/// Stored answers stay fresh for a day: under Thread Sanitizer beside the whole suite, one of these
/// tests once took 77 s between its two calls, past a 60 s `max-age`.
@Suite struct AnswerTests {
    private static let baseURL = URL(string: "https://api.example.com")
    private static let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/feed")

    private static func cache() -> HTTPCache {
        HTTPCache(storage: InMemoryCacheStorage(maximumSize: 1 << 20))
    }

    private static func fresh(_ text: String) -> Answer {
        Answer(response: HTTPResponse(status: .ok, headerFields: [.cacheControl: "max-age=86400"]), body: HTTPBody(text))
    }

    @Test func theCachesAnswerSaysItCameFromTheCache() async throws {
        let cache = Self.cache()
        let baseURL = try #require(Self.baseURL)
        let context = RequestContext(endpoint: "feed", cachePolicy: .followHTTP, isIdempotent: true, timeout: .seconds(10))
        let sent = Locked(0)
        @Sendable func network(_: HTTPRequest, _: HTTPBody?, _: URL, _: RequestContext) async throws -> Answer {
            sent.withLock { $0 += 1 }
            return Self.fresh("feed")
        }
        let first = try await cache.intercept(Self.request, body: nil, baseURL: baseURL, context: context, next: network)
        #expect(first.source == .network)
        _ = try await String(collecting: try #require(first.body), upTo: 1 << 10)
        await cache.flush()
        let second = try await cache.intercept(Self.request, body: nil, baseURL: baseURL, context: context, next: network)
        #expect(second.source == .cache)
        #expect(second.attempts == 0, "the transport was not called for it")
        #expect(sent.current == 1)
    }

    /// The cache's steps return answers, not boxes: a `304` that revalidates the stored response,
    /// and a `500` the stored response stands in for, each tell the step above the source and the
    /// transport calls they took (two each here: a retry below the cache).
    @Test func aRevalidatedOrStaleAnswerKeepsTheNetworksFacts() async throws {
        let cache = Self.cache()
        let baseURL = try #require(Self.baseURL)
        let context = RequestContext(endpoint: "feed", cachePolicy: .followHTTP, isIdempotent: true, timeout: .seconds(10))
        let replies = Locked([
            HTTPResponse(status: .ok, headerFields: [.cacheControl: "max-age=0, stale-if-error=600", .eTag: "\"v1\""]),
            HTTPResponse(status: .notModified, headerFields: [.cacheControl: "max-age=0, stale-if-error=600", .eTag: "\"v1\""]),
            HTTPResponse(status: .internalServerError),
        ])
        @Sendable func network(_: HTTPRequest, _: HTTPBody?, _: URL, _: RequestContext) async throws -> Answer {
            let response = replies.withLock { $0.removeFirst() }
            return Answer(response: response, body: HTTPBody("feed"), source: .network, attempts: 2)
        }
        func call() async throws -> Answer {
            let answer = try await cache.intercept(Self.request, body: nil, baseURL: baseURL, context: context, next: network)
            if let body = answer.body { #expect(try await String(collecting: body, upTo: 1 << 10) == "feed") }
            await cache.flush()
            return answer
        }
        let first = try await call()
        #expect((first.source, first.attempts) == (.network, 2))
        let revalidated = try await call()
        #expect((revalidated.source, revalidated.attempts) == (.revalidated, 2))
        let stale = try await call()
        #expect((stale.source, stale.attempts) == (.stale, 2))
        #expect(stale.response.status == .ok)
    }

    /// An app's own `ClientMiddleware` above the cache reads the answer's source in the report of
    /// `RequestContext.reporting(_:)` around its `next`.
    @Test func anAppsClientMiddlewareReadsTheSourceInTheReport() async throws {
        let seen = Locked<[ResponseSource]>([])
        let client = Client(
            baseURL: try #require(Self.baseURL),
            transport: StubTransport.answering(headers: [.contentType: "application/json", .cacheControl: "max-age=86400"], body: "{}"),
            middlewares: [SourceReader(seen: seen), Self.cache()]
        ) { $0.cachePolicy = .followHTTP }
        let first = try await client.response(for: Feed())
        await client.waitForBackgroundWork()
        let second = try await client.response(for: Feed())
        #expect([first.source, second.source] == [.network, .cache])
        #expect(seen.current == [.network, .cache])
    }

    /// In a generated client, the context the app sets around a call tells it where the answer came from.
    @Test func aGeneratedClientsCallerReadsTheSourceInItsContext() async throws {
        let cache = Self.cache()
        let baseURL = try #require(Self.baseURL)
        func call() async throws -> ResponseSource {
            let context = RequestContext(endpoint: "feed", cachePolicy: .followHTTP, isIdempotent: true, timeout: .seconds(10))
            let ((_, body), report) = try await RequestContext.$current.withValue(context) {
                try await RequestContext.reporting {
                    try await cache.intercept(Self.request, body: nil, baseURL: baseURL, operationID: "feed") { request, _, _ in
                        recordSend(of: request)
                        return (HTTPResponse(status: .ok, headerFields: [.cacheControl: "max-age=86400"]), HTTPBody("feed"))
                    }
                }
            }
            if let body { _ = try await String(collecting: body, upTo: 1 << 10) }
            await cache.flush()
            return report.source
        }
        #expect(try await call() == .network)
        #expect(try await call() == .cache)
    }

    private struct Feed: Endpoint {
        typealias Response = Empty
        var path: EndpointPath { "/feed" }
    }

    /// Records where each answer came from, as a plain `ClientMiddleware` can see it.
    private struct SourceReader: ClientMiddleware {
        let seen: Locked<[ResponseSource]>

        func intercept(
            _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
            next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
        ) async throws -> (HTTPResponse, HTTPBody?) {
            let (answer, report) = try await RequestContext.reporting { try await next(request, body, baseURL) }
            seen.withLock { $0.append(report.source) }
            return answer
        }
    }
}
