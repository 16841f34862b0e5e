import Courier
@testable import CourierCache
import Foundation
import HTTPTypes
import Testing

/// What an app sees and removes in its cache (`HTTPCache.entries`, `totals`, `remove`), over the
/// in-memory storage and over SQLite reopened on its file.
@Suite struct CacheEntriesTests {
    typealias Origin = InMemoryCacheTests.Origin

    /// An origin whose every answer is fresh for 60 s, its body the path.
    static func origin() -> Origin {
        Origin { request, _ in InMemoryCacheTests.ok([.cacheControl: "max-age=60", .contentType: "text/plain"], request.path ?? "") }
    }

    /// The cache as `identity` signed in uses it (nil: nobody signed in).
    static func cache(_ origin: Origin, _ storage: any CacheStorage, for identity: String?) -> HTTPCache {
        var cache = origin.cache(storage)
        cache.credentials = CredentialStore(identity.map { .bearer("token-\($0)", identity: $0) })
        return cache
    }

    @Test(arguments: StorageKind.allCases)
    func entriesListEachPartitionWithFreshnessAndTotals(kind: StorageKind) async throws {
        try await kind.with { storage async throws in
            let origin = Self.origin()
            let alice = Self.cache(origin, storage, for: "alice"), anonymous = Self.cache(origin, storage, for: nil)
            let stored = origin.now.current, wallClock = Date()
            _ = try await origin.call(alice, "/users/1/friends")
            _ = try await origin.call(anonymous, "/news?page=2")
            origin.now.withLock { $0 += 90 }
            _ = try await origin.call(alice, "/users/1/photos")

            let all = try await alice.entries()
            #expect(all.map(\.url.absoluteString) == [
                "https://api.example.com/users/1/friends", "https://api.example.com/news?page=2", "https://api.example.com/users/1/photos",
            ])
            let friends = try #require(all.first)
            #expect(friends.method == "GET")
            #expect(friends.partition == .user("alice"))
            #expect(friends.status == 200)
            #expect(friends.bodySize == "/users/1/friends".utf8.count)
            #expect(friends.headers[.contentType] == "text/plain")
            // The storage stamps its rows with the wall clock, not the cache's.
            #expect(abs(friends.storedAt.timeIntervalSince(wallClock)) < 60)
            #expect(friends.lastUsed == friends.storedAt)
            #expect(friends.freshUntil == stored.addingTimeInterval(60), "stale by now: in the past")
            #expect(all[1].partition == .anonymous)
            #expect(all[2].freshUntil == stored.addingTimeInterval(150))

            #expect(try await alice.entries(in: .user("alice")).count == 2)
            #expect(try await alice.entries(in: .anonymous).map(\.url.path) == ["/news"])
            #expect(try await alice.entries(in: .user("bob")).isEmpty)
            let totals = try await alice.totals()
            #expect(totals.keys.sorted { "\($0)" < "\($1)" } == [.anonymous, .user("alice")])
            #expect(totals[.user("alice")]?.count == 2)
            #expect(totals[.anonymous]?.count == 1)
            let bytes = totals.values.map(\.totalBytes).reduce(0, +)
            #expect(bytes == (try await storage.totals().totalBytes), "counted as the size limit counts them")
        }
    }

    @Test(arguments: StorageKind.allCases)
    func removingAURLTakesEveryMethodAndUserOrOnePartition(kind: StorageKind) async throws {
        try await kind.with { storage async throws in
            let origin = Self.origin()
            let alice = Self.cache(origin, storage, for: "alice"), bob = Self.cache(origin, storage, for: "bob")
            _ = try await origin.call(alice, "/feed")
            _ = try await origin.call(bob, "/feed")
            _ = try await origin.call(alice, "/feed", method: .head)
            _ = try await origin.call(alice, "/feed?page=2")
            let feed = try #require(URL(string: "https://API.example.com:443/feed#top"))
            #expect(try await alice.remove(url: feed, in: .user("bob")) == 1)
            #expect(try await bob.entries(in: .user("bob")).isEmpty)
            #expect(try await alice.remove(url: feed) >= 1)
            #expect(try await alice.entries().map(\.url.absoluteString) == ["https://api.example.com/feed?page=2"])
        }
    }

    @Test(arguments: StorageKind.allCases)
    func removingUnderAPrefixStopsAtPathSegments(kind: StorageKind) async throws {
        try await kind.with { storage async throws in
            let origin = Self.origin()
            let cache = Self.cache(origin, storage, for: nil)
            for path in ["/users/1", "/users/1/friends?page=2", "/users/10", "/users", "/teams/1"] { _ = try await origin.call(cache, path) }
            let prefix = try #require(URL(string: "https://api.example.com/users/1?ignored=yes"))
            #expect(try await cache.remove(under: prefix) == 2)
            #expect(try await cache.entries().map(\.url.path) == ["/users/10", "/users", "/teams/1"])
            let otherHost = try #require(URL(string: "https://other.example.com/"))
            #expect(try await cache.remove(under: otherHost) == 0)
            let everything = try #require(URL(string: "https://api.example.com"))
            #expect(try await cache.remove(under: everything) == 3)
        }
    }

    @Test(arguments: StorageKind.allCases)
    func removingByAPredicateSeesTheStoredRequestAndResponse(kind: StorageKind) async throws {
        try await kind.with { storage async throws in
            let origin = Origin { request, _ in
                let fields: HTTPFields = request.path == "/drafts" ? [.cacheControl: "max-age=60", .eTag: "\"d\""] : [.cacheControl: "max-age=600"]
                return InMemoryCacheTests.ok(fields, "body of \(request.path ?? "")")
            }
            let alice = Self.cache(origin, storage, for: "alice"), anonymous = Self.cache(origin, storage, for: nil)
            for path in ["/drafts", "/posts"] {
                _ = try await origin.call(alice, path)
                _ = try await origin.call(anonymous, path)
            }
            let shortLived = origin.now.current.addingTimeInterval(120)
            #expect(try await alice.remove(in: .user("alice")) { $0.freshUntil < shortLived && $0.headers[.eTag] != nil } == 1)
            #expect(try await alice.entries(in: .user("alice")).map(\.url.path) == ["/posts"])
            #expect(try await alice.remove { $0.url.path == "/drafts" } == 1, "the anonymous one")
            struct Refused: Error {}
            await #expect(throws: Refused.self) { try await alice.remove { _ in throw Refused() } }
            #expect(try await alice.entries().count == 2, "a predicate that throws removes nothing more")
        }
    }

    @Test(arguments: StorageKind.allCases)
    func requestsWithTheirOwnCredentialsAreOnePartitionToListAndRemove(kind: StorageKind) async throws {
        try await kind.with { storage async throws in
            let origin = Self.origin()
            let cache = origin.cache(storage)
            let baseURL = try #require(URL(string: "https://api.example.com"))
            for token in ["a", "b"] {
                let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/mine", headerFields: [.authorization: "Bearer \(token)"])
                _ = try await cache.intercept(request, body: nil, baseURL: baseURL, operationID: "mine") { _, _, _ in
                    // Storable by a shared cache too (RFC 9111 §3.5): the PostgreSQL storage is one.
                    (HTTPResponse(status: .ok, headerFields: [.cacheControl: "max-age=60, must-revalidate"]), HTTPBody("mine"))
                }
            }
            _ = try await origin.call(cache, "/public")
            await cache.flush()
            #expect(try await cache.entries(in: .ownCredentials).count == 2)
            #expect(try await cache.totals()[.ownCredentials]?.count == 2)
            #expect(try await cache.remove(url: baseURL.appendingPathComponent("mine"), in: .ownCredentials) == 2)
            #expect(try await cache.entries().map(\.partition) == [.anonymous])
        }
    }

    @Test func aUserPartitionNameRoundTripsEscapes() {
        for identity in ["alice", "a%00b", "a\0b", "%", "%%25", "100%"] {
            let name = CachePartition.user(identity).storageName ?? ""
            #expect(CachePartition(storageName: name) == .user(identity))
            #expect(!name.contains("\0"))
        }
        #expect(CachePartition(storageName: "") == .anonymous)
        #expect(CachePartition(storageName: "h:0a1b") == .ownCredentials)
    }
}
