import ArgumentParser
import CourierCache
import CourierCachePostgres
import Foundation
import HTTPTypes
import Logging
import PostgresNIO

/// A fleet on one database: N processes of this binary store (or read) at once for a fixed time,
/// each over its own pool and storage, as N servers would; the parent adds up what they did.
enum PostgresFleet {
    /// Runs `processes` copies of `postgres-member` at once; the operations per second they did in all.
    static func run(_ role: String, processes: Int, seconds: Double, port: Int, database: String, user: String) async throws -> Double {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0])
        var children: [(Process, Pipe)] = []
        for member in 0..<processes {
            let process = Process()
            let output = Pipe()
            process.executableURL = executable
            process.arguments = [
                "postgres-member", role, "--port", "\(port)", "--database", database, "--user", user,
                "--seconds", "\(seconds)", "--member", "\(member)",
            ]
            process.standardOutput = output
            try process.run()
            children.append((process, output))
        }
        var total = 0
        for (process, output) in children {
            let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            guard process.terminationStatus == 0, let count = Int(printed.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw BenchError("a fleet member failed (\(process.terminationStatus)): \(printed)")
            }
            total += count
        }
        return Double(total) / seconds
    }
}

/// One member of a fleet (run by `courier-bench postgres --writers/--readers`): stores distinct
/// 2 KB responses, or reads one stored response, for `seconds`, and prints how many it did.
struct PostgresMemberCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "postgres-member", abstract: "One process of a fleet on one database (run by `postgres`).", shouldDisplay: false)

    @Argument(help: "store or read") var role: String
    @Option var port: Int
    @Option var database = "postgres"
    @Option var user = "courier"
    @Option var seconds = 3.0
    @Option var member = 0

    func run() async throws {
        let postgres = PostgresClient(
            configuration: .init(host: "127.0.0.1", port: port, username: user, password: nil, database: database, tls: .disable),
            backgroundLogger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() }))
        let running = Task { await postgres.run() }
        defer { running.cancel() }
        let storage = PostgresCacheStorage(client: postgres, maximumSize: 1 << 40, timeout: .seconds(30))
        let body = CacheBody.bytes(Data(repeating: 7, count: 2_048))
        let now = Date()
        func response(_ url: String) -> VariantToStore {
            VariantToStore(
                key: CacheKey(normalizedURL: url), varySelection: .none, status: 200,
                headers: [.contentType: "application/json", .cacheControl: "max-age=3600"], requestTime: now, responseTime: now)
        }
        let shared = "https://bench.example/fleet/shared"
        if role == "read" { _ = try await storage.store(response(shared), body: body) }
        let end = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        var count = 0
        while ContinuousClock.now < end {
            if role == "store" {
                _ = try await storage.store(response("https://bench.example/fleet/\(member)/\(count)"), body: body)
            } else {
                guard try await storage.variants(of: CacheKey(normalizedURL: shared), inlineBodyLimit: 64 << 10).first?.body?.count == 2_048 else { throw BenchError("no hit") }
            }
            count += 1
        }
        print(count)
    }
}

/// PostgreSQL's own floor for the storage's lookup: the same query of the same row, as a bare
/// `PostgresClient` query and as a prepared statement, and the same store's rows inserted bare.
enum PostgresFloor {
    static let lookupSQL = """
        SELECT e.id, e.vary_key, e.status, e.headers, e.request_time, e.response_time, e.body_size, e.stored_at,
            e.last_access, CASE WHEN e.body_size <= $4
                THEN (SELECT string_agg(c.data, ''::bytea ORDER BY c.start) FROM courier_cache_chunk c WHERE c.entry_id = e.id) END
        FROM courier_cache_entry e
        WHERE e.partition_key = $1 AND e.url = $2 AND e.method = $3
        ORDER BY e.id
        """

    typealias Row = (Int64, String, Int32, Data, Double, Double, Int64, Double, Double, Data?)

    /// The lookup, prepared once per connection by postgres-nio.
    struct Lookup: PostgresPreparedStatement {
        static let sql = PostgresFloor.lookupSQL
        let key: CacheKey

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings()
            bindings.append(key.partition)
            bindings.append(key.url)
            bindings.append(key.method)
            bindings.append(Int64(64 << 10))
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// The lookup as a bare query (parsed every time); the rows it found.
    static func lookup(_ key: CacheKey, on client: PostgresClient) async throws -> Int {
        var bindings = PostgresBindings()
        bindings.append(key.partition)
        bindings.append(key.url)
        bindings.append(key.method)
        bindings.append(Int64(64 << 10))
        var found = 0
        for try await _ in try await client.query(PostgresQuery(unsafeSQL: lookupSQL, binds: bindings)).decode(Row.self) { found += 1 }
        return found
    }

    /// The lookup prepared; the rows it found.
    static func preparedLookup(_ key: CacheKey, on client: PostgresClient) async throws -> Int {
        var found = 0
        for try await _ in try await client.execute(Lookup(key: key)) { found += 1 }
        return found
    }

    /// An entry and its one chunk inserted by one statement (one round trip, its own transaction):
    /// the floor of a store of a body within one chunk.
    static func insert(_ url: String, body: Data, on client: PostgresClient) async throws {
        let now = Date().timeIntervalSince1970
        try await client.query(
            """
            WITH entry AS (
                INSERT INTO courier_cache_entry (partition_key, url, method, vary_key, status, headers, request_time,
                    response_time, body_size, meta_size, stored_at, last_access, use_order)
                VALUES ('', \(url), 'GET', '', 200, \(Data("content-type: application/json".utf8)), \(now), \(now),
                    \(Int64(body.count)), 100, \(now), \(now), nextval('courier_cache_use'))
                RETURNING id)
            INSERT INTO courier_cache_chunk (entry_id, start, data) SELECT id, 0, \(body) FROM entry
            """, logger: Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() }))
    }

    /// A miss of a new key and the store of its response, as `HTTPCache` asks the storage; the
    /// lookup claims the key's flight when given a claim (the store then ends it).
    static func missAndStore(_ n: Int, on storage: PostgresCacheStorage, claiming claim: CacheFlightClaim?) async throws {
        let key = CacheKey(normalizedURL: "https://bench.example/miss/\(n)")
        let found = if let claim {
            try await storage.lookup(key, inlineBodyLimit: 64 << 10, claimingFlight: claim)
        } else {
            try await storage.lookup(key, inlineBodyLimit: 64 << 10)
        }
        guard found.variants.isEmpty, claim == nil || found.flight == .yours else { throw BenchError("not a miss of one's own") }
        let now = Date()
        let response = VariantToStore(
            key: key, varySelection: .none, status: 200, headers: [.contentType: "application/json", .cacheControl: "max-age=3600"],
            requestTime: now, responseTime: now, clearMark: found.clearMark)
        guard try await storage.store(response, body: .bytes(Fixtures.cached)).stored != nil else { throw BenchError("not stored") }
    }
}
