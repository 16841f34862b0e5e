import Courier
@testable import CourierCache
import Foundation
import HTTPTypes
import Testing

/// Cache keys without named query items (pre-signed URLs), set on the cache or on a call's policy.
@Suite struct IgnoredQueryItemTests {
    typealias Origin = InMemoryCacheTests.Origin

    static func origin() -> Origin {
        Origin { _, n in InMemoryCacheTests.ok([.cacheControl: "max-age=3600"], "photo \(n)") }
    }

    static func signed(_ path: String, _ signature: String) -> String {
        "\(path)?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=2026112\(signature)T000000Z&X-Amz-Signature=\(signature)abc"
    }

    @Test(arguments: StorageKind.allCases)
    func twoSigningsOfOneObjectShareAnEntryAndNoSignatureIsStored(kind: StorageKind) async throws {
        try await kind.with { storage async throws in
            let origin = Self.origin()
            var cache = origin.cache(storage)
            cache.ignoredQueryItems = HTTPCache.presignedURLQueryItems
            #expect(try await origin.call(cache, Self.signed("/photos/1.jpg", "1")).1 == "photo 1")
            #expect(try await origin.call(cache, Self.signed("/photos/1.jpg", "2")).1 == "photo 1", "a hit")
            #expect(origin.calls == 1)
            #expect(try await cache.entries().map(\.url.absoluteString) == ["https://api.example.com/photos/1.jpg"])
            #expect(try await origin.call(cache, Self.signed("/photos/2.jpg", "1")).1 == "photo 2", "another object")
            #expect(try await origin.call(cache, Self.signed("/photos/1.jpg", "3") + "&versionId=7").1 == "photo 3", "another version")
            #expect(try await cache.entries().map(\.url.absoluteString).last == "https://api.example.com/photos/1.jpg?versionId=7")
            let signedURL = try #require(URL(string: "https://api.example.com" + Self.signed("/photos/1.jpg", "9")))
            #expect(try await cache.remove(url: signedURL) == 1, "removal finds it by the same key")
        }
    }

    @Test(arguments: StorageKind.allCases)
    func withoutTheRuleEverySigningIsAMiss(kind: StorageKind) async throws {
        try await kind.with { storage async throws in
            let origin = Self.origin()
            let cache = origin.cache(storage)
            _ = try await origin.call(cache, Self.signed("/photos/1.jpg", "1"))
            #expect(try await origin.call(cache, Self.signed("/photos/1.jpg", "2")).1 == "photo 2")
            #expect(origin.calls == 2)
        }
    }

    @Test(arguments: StorageKind.allCases)
    func aPolicyNamesItsOwnItemsBesideTheCaches(kind: StorageKind) async throws {
        try await kind.with { storage async throws in
            let origin = Self.origin()
            var cache = origin.cache(storage)
            cache.ignoredQueryItems = ["session"]
            let policy = CachePolicy.followHTTP.ignoringQueryItems(["nonce", "t%20s"])
            #expect(policy.ignoredQueryItems == ["nonce", "t%20s"])
            let context = RequestContext(endpoint: "feed", cachePolicy: policy, isIdempotent: true, timeout: .seconds(10))
            func call(_ path: String) async throws -> String {
                try await RequestContext.$current.withValue(context) { try await origin.call(cache, path).1 }
            }
            #expect(try await call("/feed?page=1&nonce=a&session=x") == "photo 1")
            #expect(try await call("/feed?nonce=b&page=1&session=y") == "photo 1", "the items left are the same")
            #expect(try await call("/feed?page=2&nonce=c") == "photo 2", "page selects content")
            #expect(try await call("/feed?page=2&t%2520s=1") == "photo 2", "a name matches after decoding")
            #expect(try await origin.call(cache, "/feed?page=1&nonce=d").1 == "photo 3", "without the policy, nonce is in the key")
        }
    }

    @Test func keyURLsDropOnlyTheNamedItems() async throws {
        var cache = HTTPCache(storage: InMemoryCacheStorage(maximumSize: 1))
        cache.redaction.queryNames = []
        let secrets = try await cache.storage.secrets(alsoNamedBy: nil)
        func key(_ url: String, ignoring ignored: Set<String>) -> String? {
            cache.keyURL(url, ignoring: ignored, secrets: secrets)
        }
        #expect(key("https://a.example/x?Signature=1", ignoring: ["Signature"]) == "https://a.example/x")
        #expect(key("https://a.example/x?a=1&Signature=1&b=2", ignoring: ["Signature"]) == "https://a.example/x?a=1&b=2")
        #expect(key("https://a.example/x?signature=1", ignoring: ["Signature"]) == "https://a.example/x?signature=1")
        #expect(key("HTTPS://A.example:443/x?a=1", ignoring: []) == "https://a.example/x?a=1")
        #expect(key("http://a b/x?Signature=1", ignoring: ["Signature"]) == nil)
    }

    @Test func keyURLsKeepSecretQueryValuesAsKeyedHashes() async throws {
        let cache = HTTPCache(storage: InMemoryCacheStorage(maximumSize: 1))
        let secrets = try await cache.storage.secrets(alsoNamedBy: nil)
        let first = try #require(cache.keyURL("https://a.example/x?page=2&token=s3cret&b", ignoring: [], secrets: secrets))
        #expect(!first.contains("s3cret"))
        #expect(first.hasPrefix("https://a.example/x?page=2&token=hmac:") && first.hasSuffix("&b"))
        #expect(cache.keyURL("https://a.example/x?page=2&token=s3cret&b", ignoring: [], secrets: secrets) == first, "one token, one key")
        #expect(cache.keyURL("https://a.example/x?page=2&token=other&b", ignoring: [], secrets: secrets) != first)
        let another = HTTPCache(storage: InMemoryCacheStorage(maximumSize: 1))
        let otherSecrets = try await another.storage.secrets(alsoNamedBy: nil)
        #expect(another.keyURL("https://a.example/x?page=2&token=s3cret&b", ignoring: [], secrets: otherSecrets) != first,
                "the hash is keyed by the storage")
    }
}
