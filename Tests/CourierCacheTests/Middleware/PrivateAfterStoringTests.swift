import Courier
@testable import CourierCache
import Foundation
import HTTPTypes
import Testing

/// A `304` or a `HEAD` that says a stored response is now `private`: a shared cache keeps it no
/// longer (RFC 9111 §5.2.2.7, as it wouldn't have stored it), a private one updates it.
@Suite struct PrivateAfterStoringTests {
    typealias Origin = InMemoryCacheTests.Origin

    @Test(arguments: StorageKind.allCases, [HTTPRequest.Method.get, .head])
    func aSharedCacheDropsAnEntryThatTurnedPrivate(kind: StorageKind, updatedBy method: HTTPRequest.Method) async throws {
        for sharing in [CacheSharing.shared, .private] {
            try await kind.with { storage async throws in
                let turnedPrivate: HTTPFields = [.cacheControl: "private, max-age=600", .eTag: "\"v1\""]
                let origin = Origin { request, count in
                    if count == 1 { return (HTTPResponse(status: .ok, headerFields: [.cacheControl: "max-age=0", .eTag: "\"v1\""]), "feed") }
                    if request.method == .head { return (HTTPResponse(status: .ok, headerFields: turnedPrivate), "") }
                    return (HTTPResponse(status: .notModified, headerFields: turnedPrivate), "")
                }
                let cache = HTTPCache(storage: storage, sharing: sharing, offlineAllowance: nil, now: { [now = origin.now] in now.current })
                _ = try await origin.call(cache)
                #expect(try await cache.entries().count == 1)
                if method == .head {
                    _ = try await origin.call(cache, method: .head)
                } else {
                    #expect(try await origin.call(cache).1 == "feed", "the caller still gets the revalidated response")
                }
                #expect(origin.calls == 2)
                #expect(try await cache.entries().count == (sharing == .shared ? 0 : 1), "\(sharing)")
            }
        }
    }
}
