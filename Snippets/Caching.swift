// A persistent HTTP cache: the policies, per-user partitions, offline fallback, size and clearing.
//
// Runs against an in-process MockServer: `swift run Caching`.

// snippet.hide
import CourierTesting
import Logging

let server = try await MockServer.start()
server.route("GET", "/feed", respond: .json(#"["hello"]"#, headers: [MockHeader("Cache-Control", "max-age=60")]))
server.route("GET", "/tiles/alps", respond: .bytes(Array(repeating: 1, count: 300_000), contentType: "application/octet-stream", headers: [MockHeader("Cache-Control", "max-age=86400")]))
let tilesFolder = FileManager.default.temporaryDirectory.appending(path: "courier-snippet-tiles-\(UUID())")
try FileManager.default.createDirectory(at: tilesFolder, withIntermediateDirectories: true)
let api = server.baseURL
let cacheFile = FileManager.default.temporaryDirectory.appending(path: "courier-snippet-\(UUID()).sqlite")
let logger = Logger(label: "app.cache")
func render(_ feed: [String], stale: Bool) {}
// snippet.show
import Courier
import CourierCache
import Foundation

struct Feed: Endpoint {
    typealias Response = [String]
    var path: EndpointPath { "/feed" }
    var cachePolicy: CachePolicy? { .followHTTP }      // this endpoint's default policy
}

// snippet.setup
// One SQLite file, 50 MB at most (least recently used entries go first). A file that
// can't be opened falls back to memory, with an error logged: the client always works.
let store = SQLiteCacheStorage.openOrFallBack(fileURL: cacheFile, maximumSize: 50 << 20, logger: logger)
let cache = HTTPCache(storage: store)

let credentials = CredentialStore()
cache.clearPartition(onSignOutOf: credentials)       // signing out forgets that user's data

// Responses are kept apart per user, whatever the order of the middlewares.
let client = Client(baseURL: api, middlewares: [cache, CredentialsMiddleware(provider: credentials)])
// snippet.end

// snippet.policies
func loadFeed() async throws(CourierError) {
    // Fresh by Cache-Control/Expires, else revalidated with ETag / Last-Modified.
    let feed = try await client.response(for: Feed())
    print(feed.source)                                // network, cache, revalidated or stale

    // Works offline: the network first, the stored copy when it fails.
    _ = try await client.send(Feed(), cachePolicy: .networkFirst)

    // Offline screens: only the cache; a miss fails with status 504.
    _ = try? await client.send(Feed(), cachePolicy: .cacheOnly)
}
// snippet.end

// snippet.twice
// Show the stored value at once, then the network's: two values through one stream.
func watchFeed() async throws {
    for try await update in client.updates(for: Feed(), cachePolicy: .useCacheAndRequest) {
        render(update.value, stale: update.source == .stale)
    }
}
// snippet.end

// snippet.downloads
// A download skips the cache unless the call or its endpoint asks. Asked, the file's bytes
// are copied into the store a chunk at a time, and a later download is written from the
// store the same way: neither is ever held whole in memory.
struct MapTiles: Endpoint {
    typealias Response = Data
    var region: String
    var path: EndpointPath { "/tiles/\(region)" }
    var cachePolicy: CachePolicy? { .followHTTP }      // lets the cache keep this download
}

func downloadTiles(to folder: URL) async throws(CourierError) {
    let pack = try await client.download(MapTiles(region: "alps"), to: folder.appending(path: "alps.tiles"))
    print(pack.source)                                // network the first time, then cache
}
// snippet.end

// snippet.clearing
func housekeeping() async throws {
    let stats = try await cache.statistics()
    print(stats.entryCount, stats.totalBytes, stats.hitRatio)
    try await cache.remove(Feed(), in: client)        // one endpoint, every user
    try await cache.clear(identity: "user-42")        // one user
    try await cache.clear()                           // everything
}
// snippet.end

// snippet.hide
try await loadFeed()
try await watchFeed()
precondition(server.requestCount("/feed") == 3, "\(server.requestCount("/feed"))")
try await downloadTiles(to: tilesFolder)
try await downloadTiles(to: tilesFolder)
precondition(server.requestCount("/tiles/alps") == 1, "\(server.requestCount("/tiles/alps"))")
try? FileManager.default.removeItem(at: tilesFolder)
try await housekeeping()
try await server.shutdown()
try? FileManager.default.removeItem(at: cacheFile)
