import Courier
@testable import CourierCache
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// The middleware's behaviour as values: `HTTPCache` over the in-memory storage, its network a
/// closure and its clock a variable, no socket and no file.
@Suite struct InMemoryCacheTests {
    /// An origin that answers from a closure, records what it was asked, and a clock the test moves.
    final class Origin: Sendable {
        let requests = Locked<[HTTPRequest]>([])
        let now = Locked(Date(timeIntervalSince1970: 1_700_000_000))
        private let answer: @Sendable (HTTPRequest, Int) throws -> (HTTPResponse, String)

        init(_ answer: @escaping @Sendable (HTTPRequest, Int) throws -> (HTTPResponse, String)) {
            self.answer = answer
        }

        func cache(_ storage: any CacheStorage, offlineAllowance: TimeInterval? = 7 * 24 * 3600) -> HTTPCache {
            HTTPCache(storage: storage, offlineAllowance: offlineAllowance, now: { [now] in now.current })
        }

        /// A GET (or `method`) of `path` through `cache`: the response and its body as text.
        func call(
            _ cache: HTTPCache, _ path: String = "/feed", method: HTTPRequest.Method = .get, body requestBody: String? = nil
        ) async throws -> (HTTPResponse, String) {
            let request = HTTPRequest(method: method, scheme: nil, authority: nil, path: path)
            let baseURL = try #require(URL(string: "https://api.example.com"))
            let (response, body) = try await cache.intercept(
                request, body: requestBody.map { HTTPBody($0) }, baseURL: baseURL, operationID: "feed"
            ) { request, _, _ in
                recordSend(of: request)
                let count = self.requests.withLock { requests in
                    requests.append(request)
                    return requests.count
                }
                let (response, text) = try self.answer(request, count)
                return (response, HTTPBody(text))
            }
            var text = ""
            if let body { text = try await String(collecting: body, upTo: 1 << 20) }
            // The cache writes after the call returns: what it stored is in the storage once it is done.
            await cache.flush()
            return (response, text)
        }

        var calls: Int { requests.current.count }
    }

    static func ok(_ fields: HTTPFields, _ body: String) -> (HTTPResponse, String) {
        (HTTPResponse(status: .ok, headerFields: fields), body)
    }

    @Test func aFreshResponseIsServedWithoutTheNetwork() async throws {
        let origin = Origin { _, n in Self.ok([.cacheControl: "max-age=60"], "feed \(n)") }
        let storage = InMemoryCacheStorage(maximumSize: 1 << 20)
        let cache = origin.cache(storage)
        #expect(try await origin.call(cache).1 == "feed 1")
        origin.now.withLock { $0 += 30 }
        let (second, body) = try await origin.call(cache)
        #expect(body == "feed 1")
        #expect(second.headerFields[.age] == "30")
        #expect(origin.calls == 1)
        #expect(try await cache.statistics().hits == 1)
    }

    /// The cache's key is the URL: a GET whose body picks the answer gets its own, every time.
    @Test func aGETWithABodyIsNeitherServedNorStored() async throws {
        let origin = Origin { _, n in Self.ok([.cacheControl: "max-age=60"], "hits \(n)") }
        let storage = InMemoryCacheStorage(maximumSize: 1 << 20)
        let cache = origin.cache(storage)
        _ = try await origin.call(cache, "/search")
        #expect(try await origin.call(cache, "/search", body: #"{"q":"a"}"#).1 == "hits 2")
        #expect(try await origin.call(cache, "/search", body: #"{"q":"b"}"#).1 == "hits 3")
        #expect(try await origin.call(cache, "/search").1 == "hits 1", "the GET without a body is still cached")
        #expect(try await cache.statistics().entryCount == 1)
    }

    @Test func aStaleResponseIsRevalidatedAndANotModifiedRefreshesIt() async throws {
        let origin = Origin { request, n in
            if request.headerFields[.ifNoneMatch] == "\"v1\"" { return (HTTPResponse(status: .notModified, headerFields: [.cacheControl: "max-age=60"]), "") }
            return Self.ok([.cacheControl: "max-age=60", .eTag: "\"v1\""], "feed \(n)")
        }
        let storage = InMemoryCacheStorage(maximumSize: 1 << 20)
        let cache = origin.cache(storage)
        _ = try await origin.call(cache)
        origin.now.withLock { $0 += 120 }
        #expect(try await origin.call(cache).1 == "feed 1", "the stored body answers the 304")
        #expect(origin.requests.current.last?.headerFields[.ifNoneMatch] == "\"v1\"")
        origin.now.withLock { $0 += 30 }
        #expect(try await origin.call(cache).1 == "feed 1")
        #expect(origin.calls == 2, "fresh again after the 304")
    }

    @Test func aSuccessfulPostRemovesTheStoredGet() async throws {
        let origin = Origin { request, n in
            request.method == .post ? (HTTPResponse(status: .noContent), "") : Self.ok([.cacheControl: "max-age=600"], "feed \(n)")
        }
        let storage = InMemoryCacheStorage(maximumSize: 1 << 20)
        let cache = origin.cache(storage)
        _ = try await origin.call(cache)
        #expect(try await storage.totals().count == 1)
        _ = try await origin.call(cache, method: .post)
        #expect(try await storage.totals().count == 0)
        #expect(try await origin.call(cache).1 == "feed 3")
    }

    @Test func aNoStoreResponseIsNotStored() async throws {
        let origin = Origin { _, n in Self.ok([.cacheControl: "no-store"], "feed \(n)") }
        let storage = InMemoryCacheStorage(maximumSize: 1 << 20)
        let cache = origin.cache(storage)
        _ = try await origin.call(cache)
        #expect(try await origin.call(cache).1 == "feed 2")
        #expect(try await storage.totals().count == 0)
    }

    @Test func aFailedNetworkIsAnsweredByAStaleEntryWithinStaleIfError() async throws {
        let origin = Origin { _, n in
            guard n == 1 else { throw CourierError(.noConnection, detail: "offline") }
            return Self.ok([.cacheControl: "max-age=60, stale-if-error=600"], "feed 1")
        }
        // Only the server's allowance counts here, not the client's offline one.
        let cache = origin.cache(InMemoryCacheStorage(maximumSize: 1 << 20), offlineAllowance: nil)
        _ = try await origin.call(cache)
        origin.now.withLock { $0 += 300 }
        #expect(try await origin.call(cache).1 == "feed 1")
        origin.now.withLock { $0 += 600 }
        await #expect(throws: CourierError.self) { try await origin.call(cache) }
    }

    /// An endpoint's policy carries its own offline allowance, which replaces the cache's (7 days
    /// here) for its calls only, tighter or looser; on every storage.
    @Test(arguments: [CachePolicy.networkFirst, .followHTTP], StorageKind.allCases)
    func aPolicysOfflineAllowanceReplacesTheCachesForItsCalls(policy: CachePolicy, kind: StorageKind) async throws {
        try await kind.with { storage async throws in
            let origin = Origin { _, n in
                guard n == 1 else { throw CourierError(.noConnection, detail: "offline") }
                return Self.ok([.cacheControl: "max-age=60"], "balance 1")
            }
            let cache = origin.cache(storage)
            func call(allowance: Duration?) async throws -> String {
                let chosen = allowance.map { policy.allowingOffline(upTo: $0) } ?? policy
                let context = RequestContext(endpoint: "balance", cachePolicy: chosen, isIdempotent: true, timeout: .seconds(10))
                return try await RequestContext.$current.withValue(context) { try await origin.call(cache).1 }
            }
            _ = try await call(allowance: nil)
            origin.now.withLock { $0 += 60 + 300 }
            // Five minutes stale: the cache's week allows it, an endpoint's two minutes don't.
            #expect(try await call(allowance: nil) == "balance 1")
            await #expect(throws: CourierError.self) { try await call(allowance: .seconds(120)) }
            #expect(try await call(allowance: .seconds(600)) == "balance 1")
            origin.now.withLock { $0 += 8 * 24 * 3600 }
            // Eight days stale: beyond the cache's week, within an endpoint's month.
            await #expect(throws: CourierError.self) { try await call(allowance: nil) }
            #expect(try await call(allowance: .seconds(30 * 24 * 3600)) == "balance 1")
        }
    }

    @Test func aPolicyWithAnOfflineAllowanceIsStillItsPolicy() {
        let loose = CachePolicy.networkFirst.allowingOffline(upTo: .seconds(3600))
        #expect(loose.description == "networkFirst")
        #expect(loose.offlineAllowance == .seconds(3600))
        #expect(loose != .networkFirst)
        #expect(CachePolicy.followHTTP.allowingOffline(upTo: .seconds(-5)).offlineAllowance == .zero)
        #expect(CachePolicy.networkFirst.offlineAllowance == nil)
    }
}
