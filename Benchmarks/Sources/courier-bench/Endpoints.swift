import Courier
import Foundation

/// The small object; `n` makes every URL unique so Courier's in-flight coalescing never merges two
/// calls (the raw clients send the same `?n=` query).
struct SmallEndpoint: Endpoint {
    typealias Response = SmallUser
    var n: Int
    var path: EndpointPath { "/small.json" }
    var query: Parameters { ["n": n] }
}

struct LargeEndpoint: Endpoint {
    typealias Response = [LargeItem]
    var path: EndpointPath { "/large.json" }
}

struct CachedEndpoint: Endpoint {
    typealias Response = CachedFeed
    var path: EndpointPath { "/cached.json" }
}

/// The same cached resource as raw bytes: a hit without the app's decoding, the cache's own cost.
struct CachedBytesEndpoint: Endpoint {
    typealias Response = Data
    var path: EndpointPath { "/cached.json" }
}

/// The cached resource under one of many URLs (`/cached.json?<name>=<n>`): every URL its own cache entry.
struct FeedEndpoint: Endpoint {
    typealias Response = CachedFeed
    var name: String
    var n: Int
    var path: EndpointPath { "/cached.json" }
    var query: Parameters { [name: n] }
    /// Asked with `Cache-Control: no-store`: a cache's whole path runs, but it stores nothing.
    var notToStore = false
    var headers: HTTPFields { notToStore ? [.cacheControl: "no-store"] : [:] }
}

struct PostEndpoint: Endpoint {
    typealias Response = PostAnswer
    var method: HTTPRequest.Method { .post }
    var path: EndpointPath { "/post" }
    var body: RequestBody? { .json(Fixtures.note) }
}
