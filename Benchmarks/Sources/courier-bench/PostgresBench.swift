import ArgumentParser
import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import CourierCache
import CourierCachePostgres
import CourierTesting
import Foundation
import Logging
import PostgresNIO
#if canImport(Glibc)
import Glibc
#endif

/// The PostgreSQL cache storage beside SQLite's, each against a control measured in the same run:
/// a hit and a miss + store on each, a raw AsyncHTTPClient loopback round trip, Courier/AHC without
/// a cache (twice: the second is the control), and a call whose database hangs.
struct PostgresBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "postgres",
        abstract: "The PostgreSQL cache storage against SQLite's and a loopback round trip (needs a running server).")

    @Option(help: "The PostgreSQL server's port on 127.0.0.1 (trust authentication), e.g. a throwaway one from initdb + pg_ctl.")
    var port: Int

    @Option(help: "The database (its courier_cache_* tables are emptied first).")
    var database = "postgres"

    @Option(help: "The user.")
    var user = "courier"

    @Option(help: "Measured rounds (the median is reported).")
    var rounds = 5

    @Option(help: "Calls per subject per round.")
    var requests = 400

    @Option(help: "Writer processes storing at once on the database, one row each (repeatable: --writers 1 --writers 4).")
    var writers: [Int] = []

    @Option(help: "Reader processes hitting one stored response at once (one row).")
    var readers: Int?

    @Option(help: "Seconds each fleet row runs.")
    var fleetSeconds = 3.0

    func run() async throws {
        let origin = try await MockServer.start()
        let feed = String(decoding: Fixtures.cached, as: UTF8.self)
        origin.route("GET", Fixtures.cachedPath, respond: .json(feed, headers: [MockHeader("Cache-Control", "max-age=3600")]))
        let postgres = PostgresClient(
            configuration: .init(host: "127.0.0.1", port: port, username: user, password: nil, database: database, tls: .disable),
            backgroundLogger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() }))
        let running = Task { await postgres.run() }
        defer { running.cancel() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-bench-pg-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let sqlite = try SQLiteCacheStorage(fileURL: directory.appendingPathComponent("cache.sqlite"), maximumSize: 500 << 20)
        let shared = PostgresCacheStorage(client: postgres, maximumSize: 500 << 20)
        _ = try await shared.removeAll(.everything)
        let hang = try BlackHole()
        let hanging = PostgresClient(
            configuration: .init(host: "127.0.0.1", port: hang.port, username: user, password: nil, database: database, tls: .disable),
            backgroundLogger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() }))
        let runningHang = Task { await hanging.run() }
        defer { runningHang.cancel() }
        let hangTimeout = Duration.milliseconds(200)

        let http = HTTPClient.shared
        let transport = AsyncHTTPClientTransport(client: http)
        func cached(_ storage: any CacheStorage) -> Client {
            Client(baseURL: origin.baseURL, transport: transport, middlewares: [HTTPCache(storage: storage)]) { $0.cachePolicy = .followHTTP }
        }
        let plain = Client(baseURL: origin.baseURL, transport: transport)
        let onSQLite = cached(sqlite)
        let onPostgres = cached(shared)
        let onHang = cached(PostgresCacheStorage(client: hanging, maximumSize: 1 << 20, timeout: hangTimeout))
        let url = origin.baseURL.appendingPathComponent(String(Fixtures.cachedPath.dropFirst())).absoluteString
        // The hits' one URL, stored once.
        _ = try await onSQLite.send(FeedEndpoint(name: "hit", n: 0))
        _ = try await onPostgres.send(FeedEndpoint(name: "hit", n: 0))

        // PostgreSQL's floor: the storage's own lookup query of a stored row, bare and prepared.
        let bareKey = CacheKey(normalizedURL: "https://bench.example/floor")
        let now = Date()
        _ = try await shared.store(
            VariantToStore(key: bareKey, varySelection: .none, status: 200, headers: [.cacheControl: "max-age=3600"], requestTime: now, responseTime: now),
            body: .bytes(Fixtures.cached))
        let floorBody = Fixtures.cached

        var counter = 0
        let claimant = UUID()
        let subjects: [(name: String, calls: Int, call: () async throws -> Void)] = [
            ("raw AHC loopback GET", requests, {
                let response = try await http.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
                _ = try await response.body.collect(upTo: 1 << 20)
            }),
            ("Courier/AHC, no cache", requests, { counter += 1; _ = try await plain.send(FeedEndpoint(name: "p", n: counter)) }),
            ("Courier/AHC, no cache (control)", requests, { counter += 1; _ = try await plain.send(FeedEndpoint(name: "q", n: counter)) }),
            ("hit, SQLite", requests, { _ = try await onSQLite.send(FeedEndpoint(name: "hit", n: 0)) }),
            ("hit, PostgreSQL", requests, { _ = try await onPostgres.send(FeedEndpoint(name: "hit", n: 0)) }),
            ("miss + store, SQLite", requests, { counter += 1; _ = try await onSQLite.send(FeedEndpoint(name: "s", n: counter)) }),
            ("miss + store, PostgreSQL", requests, { counter += 1; _ = try await onPostgres.send(FeedEndpoint(name: "g", n: counter)) }),
            ("floor: the lookup, bare query", requests, {
                guard try await PostgresFloor.lookup(bareKey, on: postgres) == 1 else { throw BenchError("no row") }
            }),
            ("floor: the lookup, prepared", requests, {
                guard try await PostgresFloor.preparedLookup(bareKey, on: postgres) == 1 else { throw BenchError("no row") }
            }),
            ("breakdown: the storage's lookup alone", requests, {
                guard try await shared.variants(of: bareKey, inlineBodyLimit: 64 << 10).count == 1 else { throw BenchError("no row") }
            }),
            ("breakdown: the storage's store alone", requests, {
                counter += 1
                let response = VariantToStore(
                    key: CacheKey(normalizedURL: "https://bench.example/store/\(counter)"), varySelection: .none, status: 200,
                    headers: [.contentType: "application/json", .cacheControl: "max-age=3600"], requestTime: Date(), responseTime: Date())
                guard try await shared.store(response, body: .bytes(floorBody)).stored != nil else { throw BenchError("not stored") }
            }),
            // What sharing a miss across the fleet costs the storage: the same lookup and store, the
            // lookup claiming the key's flight (which the store ends) or not.
            ("breakdown: miss + store, no flight", requests, {
                counter += 1
                try await PostgresFloor.missAndStore(counter, on: shared, claiming: nil)
            }),
            ("breakdown: miss + store, its flight", requests, {
                counter += 1
                try await PostgresFloor.missAndStore(counter, on: shared, claiming: CacheFlightClaim(claimant: claimant, duration: .seconds(60)))
            }),
            ("floor: entry + chunk inserted", requests, {
                counter += 1
                try await PostgresFloor.insert("https://bench.example/floor/\(counter)", body: floorBody, on: postgres)
            }),
            ("database hangs (timeout 200 ms)", 3, { counter += 1; _ = try await onHang.send(FeedEndpoint(name: "h", n: counter)) }),
        ]
        var walls: [[Double]] = Array(repeating: [], count: subjects.count)
        var cpus: [[Double]] = Array(repeating: [], count: subjects.count)
        for _ in 0..<max(rounds, 1) {
            for (index, subject) in subjects.enumerated() {
                let sample = try await measure(requests: subject.calls) {
                    for _ in 0..<subject.calls { try await subject.call() }
                }
                walls[index].append(sample.wallPerRequest * 1e6)
                cpus[index].append(sample.cpuPerRequest * 1e6)
            }
        }
        let loopback = median(walls[0])
        let control = median(walls[1])
        print("medians of \(rounds) interleaved rounds, µs per call; × a raw AHC loopback round trip and × Courier/AHC without a cache, same run")
        print("subject                                wall µs  ×loopback  ×no cache  CPU µs")
        for (index, subject) in subjects.enumerated() {
            let wall = median(walls[index])
            print(
                subject.name.padding(toLength: 38, withPad: " ", startingAt: 0),
                String(format: "%8.1f  %9.2f  %9.2f  %6.1f", wall, wall / loopback, wall / control, median(cpus[index])))
        }
        func wall(_ name: String) -> Double { subjects.firstIndex { $0.name == name }.map { median(walls[$0]) } ?? .nan }
        print("the hanging database's call: \(String(format: "%.0f", wall("database hangs (timeout 200 ms)") / 1000)) ms each, its storage's timeout 200 ms")
        let hit = wall("hit, PostgreSQL")
        print(String(
            format: """
                PostgreSQL hit: %.2f× the bare lookup, %.2f× the prepared one; miss + store: %.2f× Courier/AHC without a cache \
                + the bare insert; the storage's store alone: %.2f× the bare insert; its miss + store claiming the \
                key's flight: %.2f× without
                """,
            hit / wall("floor: the lookup, bare query"), hit / wall("floor: the lookup, prepared"),
            wall("miss + store, PostgreSQL") / (control + wall("floor: entry + chunk inserted")),
            wall("breakdown: the storage's store alone") / wall("floor: entry + chunk inserted"),
            wall("breakdown: miss + store, its flight") / wall("breakdown: miss + store, no flight")))
        try await origin.shutdown()
        try await fleetRows()
    }

    /// Stores and hits per second with several processes on the database at once (a fleet).
    private func fleetRows() async throws {
        guard !writers.isEmpty || readers != nil else { return }
        print("a fleet on one database: processes at once for \(fleetSeconds) s each, 2 KB bodies, distinct keys")
        print("processes  role     per second  per process")
        for count in writers {
            let rate = try await PostgresFleet.run("store", processes: count, seconds: fleetSeconds, port: port, database: database, user: user)
            print(String(format: "%9d  stores  %11.0f  %11.0f", count, rate, rate / Double(count)))
        }
        if let readers {
            let rate = try await PostgresFleet.run("read", processes: readers, seconds: fleetSeconds, port: port, database: database, user: user)
            print(String(format: "%9d  hits    %11.0f  %11.0f", readers, rate, rate / Double(readers)))
        }
    }
}

/// A TCP port that takes connections and never answers: a database that hangs.
final class BlackHole {
    let port: Int
    private let descriptor: Int32

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.descriptor = descriptor
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && listen(descriptor, 64) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        guard descriptor >= 0, bound else { throw BenchError("the black hole can't listen") }
    }

    deinit { close(descriptor) }
}
