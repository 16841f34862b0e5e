import Courier
import CourierCache
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// The cache's miss path without a network, timed in process CPU (the store's writer thread
/// included), which the machine's other load inflates far less than wall time.
///
/// Three clients over the same no-op transport answering the 2 KB feed with `max-age`: without a
/// cache; with the `followHTTP` policy but no cache (the in-flight coalescing a cache policy turns
/// on); and with `HTTPCache` on a store on disk, every call a new URL. The second to the third is
/// the cache's own cost of a miss; the first to the third is what an app sees.
func cacheMicroCases(iterations: Int) throws -> [MicroCase] {
    guard let baseURL = URL(string: "http://127.0.0.1:8080") else { throw BenchError("bad base URL") }
    let transport = NoopCachedTransport(body: Fixtures.cached)
    let plain = Client(baseURL: baseURL, transport: transport)
    let coalescing = Client(baseURL: baseURL, transport: transport) { $0.cachePolicy = .followHTTP }
    // A fixed folder, emptied on every run; 50 MB, so a long run evicts as a full cache does.
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-bench-micro-cache")
    try? FileManager.default.removeItem(at: directory)
    let store = try SQLiteCacheStorage(fileURL: directory.appendingPathComponent("miss.sqlite"), maximumSize: 50 << 20)
    let cached = Client(baseURL: baseURL, transport: transport, middlewares: [HTTPCache(storage: store)]) {
        $0.cachePolicy = .followHTTP
    }
    let unstored = Client(
        baseURL: baseURL, transport: NoopCachedTransport(body: Fixtures.cached, cacheControl: "no-store"),
        middlewares: [HTTPCache(storage: store)]
    ) { $0.cachePolicy = .followHTTP }
    // The hit's breakdown: a store of `hitKeys` URLs, filled by the warm-up's first pass (every
    // later call is a hit), the full client's hit against the store's lookup alone.
    let hitStore = try SQLiteCacheStorage(fileURL: directory.appendingPathComponent("hit.sqlite"), maximumSize: 50 << 20)
    let hitting = Client(baseURL: baseURL, transport: transport, middlewares: [HTTPCache(storage: hitStore)]) {
        $0.cachePolicy = .followHTTP
    }
    let hitsAlone = HTTPCache(storage: hitStore)
    let hitKeys = 200
    var storedKeys: [CacheKey] = []
    // The store alone against SQLite's floor, each on a file of its own and never evicting (the floor doesn't).
    let storeAlone = try SQLiteCacheStorage(fileURL: directory.appendingPathComponent("store.sqlite"), maximumSize: 1 << 30)
    // A full cache, 1 MB: past its first few hundred stores, every store evicts the oldest variant.
    let fullStore = try SQLiteCacheStorage(fileURL: directory.appendingPathComponent("full.sqlite"), maximumSize: 1 << 20)
    let floorURL = directory.appendingPathComponent("floor.sqlite")
    _ = try SQLiteCacheStorage(fileURL: floorURL, maximumSize: 50 << 20)  // the schema, then released (closed)
    let floor = try SQLiteFloor(path: floorURL.path)
    var counter = 0
    /// Stores the 2 KB feed into `store` under a new URL.
    func storeOne(into store: SQLiteCacheStorage) async throws {
        counter &+= 1
        let response = VariantToStore(
            key: CacheKey(normalizedURL: "http://127.0.0.1:8080/stored?n=\(counter)"), varySelection: .none, status: 200,
            headers: [.contentType: "application/json", .cacheControl: "max-age=\(Fixtures.cacheMaxAge)"],
            requestTime: Date(), responseTime: Date())
        guard try await store.store(response, body: .bytes(Fixtures.cached)).stored != nil else { throw BenchError("not stored") }
    }
    return [
        MicroCase(name: "cache: 2 KB GET+decode, no cache, over no-op transport", iterations: iterations) {
            counter &+= 1
            _ = try await plain.send(FeedEndpoint(name: "p", n: counter))
        },
        MicroCase(name: "cache: 2 KB GET+decode, followHTTP policy without a cache (coalescing)", iterations: iterations) {
            counter &+= 1
            _ = try await coalescing.send(FeedEndpoint(name: "c", n: counter))
        },
        MicroCase(name: "cache: 2 KB miss of a no-store response (the cache's path, nothing stored)", iterations: iterations) {
            counter &+= 1
            _ = try await unstored.send(FeedEndpoint(name: "u", n: counter))
        },
        MicroCase(name: "cache: 2 KB miss + store, over no-op transport", iterations: iterations) {
            counter &+= 1
            _ = try await cached.send(FeedEndpoint(name: "m", n: counter))
        },
        MicroCase(name: "cache: 2 KB hit, over no-op transport", iterations: iterations) {
            counter &+= 1
            _ = try await hitting.send(FeedEndpoint(name: "h", n: counter % hitKeys))
        },
        MicroCase(name: "cache: the same hit, HTTPCache alone (its middleware face: no client, no decode)", iterations: iterations) {
            counter &+= 1
            let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/cached.json?h=\(counter % hitKeys)")
            let (response, body) = try await hitsAlone.intercept(request, body: nil, baseURL: baseURL, operationID: "feed") { _, _, _ in
                throw BenchError("a miss: the hit case fills the store, run it too")
            }
            guard response.status == .ok, let body else { throw BenchError("HTTPCache alone: status \(response.status.code)") }
            _ = try await Data(collecting: body, upTo: 1 << 20)
        },
        MicroCase(name: "cache: a no-store miss, HTTPCache alone (its middleware face: no client, no decode)", iterations: iterations) {
            counter &+= 1
            let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/cached.json?u=\(counter)")
            let (response, body) = try await hitsAlone.intercept(request, body: nil, baseURL: baseURL, operationID: "feed") { _, _, _ in
                (HTTPResponse(status: .ok, headerFields: [.contentType: "application/json", .cacheControl: "no-store"]), HTTPBody(Fixtures.cached))
            }
            guard response.status == .ok, let body else { throw BenchError("HTTPCache alone: status \(response.status.code)") }
            _ = try await Data(collecting: body, upTo: 1 << 20)
        },
        MicroCase(name: "cache: the SQLite store's lookup alone, a 2 KB variant with its body", iterations: iterations) {
            if storedKeys.isEmpty { storedKeys = try await hitStore.variants(in: nil).map(\.key) }
            guard !storedKeys.isEmpty else { throw BenchError("nothing stored: run it with the hit case, which fills the store") }
            counter &+= 1
            let found = try await hitStore.variants(of: storedKeys[counter % storedKeys.count], inlineBodyLimit: 64 << 10)
            guard found.first?.body != nil else { throw BenchError("the stored variant came without its body") }
        },
        MicroCase(name: "cache: the SQLite store's store alone, a 2 KB variant", iterations: iterations) {
            try await storeOne(into: storeAlone)
        },
        MicroCase(name: "cache: the SQLite store's store alone into a full cache (each store evicts one)", iterations: iterations) {
            try await storeOne(into: fullStore)
        },
        MicroCase(name: "cache: SQLite's floor, an entry and its 2 KB body inserted in one transaction (C API, prepared)", iterations: iterations) {
            try floor.insert(headers: Data(count: 60), body: Fixtures.cached)
        },
        MicroCase(name: "cache: the SQLite store's lookup alone, nothing stored", iterations: iterations) {
            counter &+= 1
            _ = try await hitStore.variants(of: CacheKey(normalizedURL: "http://127.0.0.1:8080/absent?n=\(counter)"), inlineBodyLimit: 64 << 10)
        },
    ]
}

/// The no-op transport with the feed's `Cache-Control`, so every answer is stored.
struct NoopCachedTransport: ClientTransport {
    var body: Data
    var cacheControl = "max-age=\(Fixtures.cacheMaxAge)"

    func send(_ request: HTTPRequest, body _: HTTPBody?, baseURL _: URL, operationID _: String) async throws -> (HTTPResponse, HTTPBody?) {
        let fields: HTTPFields = [.contentType: "application/json", .cacheControl: cacheControl]
        return (HTTPResponse(status: .ok, headerFields: fields), HTTPBody(body))
    }
}
