// A server of a fleet: one HTTP cache in PostgreSQL that every instance shares, a service group
// that runs the database pool as long as the server, and upstream calls made for many end users.
// Each user's partition is that user's private cache on every server, and a key the fleet misses
// at once costs the upstream one request: nothing to set up beyond the two lines of `setup`.
//
// Runs against an in-process MockServer and no database at all (`swift run FleetServer`): the
// cache's storage fails, is logged once and then skipped, and every call still gets its answer.

// snippet.hide
import CourierTesting
import Foundation

let upstreamServer = try await MockServer.start()
upstreamServer.route("GET", "/profile") { request in
    .json(#"{"user":"\#(request.header("Authorization") ?? "")"}"#, headers: [MockHeader("Cache-Control", "max-age=60, must-revalidate")])
}
let upstream = upstreamServer.baseURL
// Nothing listens on port 1: the database is down for the whole run.
let (databaseHost, databasePort, databaseTLS) = ("127.0.0.1", 1, PostgresClient.Configuration.TLS.disable)
struct Profile: Endpoint {
    typealias Response = JSON
    var path: EndpointPath { "/profile" }
    var cachePolicy: CachePolicy? { .followHTTP }
}
// snippet.show
import Courier
import CourierCache
import CourierCachePostgres
import Logging
import PostgresNIO
import ServiceLifecycle

// snippet.users
/// The end user the request being handled acts for: a task-local value, so one `Client` (and
/// one cache) serves every user, each call under its own user's credentials and partition.
enum EndUser {
    @TaskLocal static var credentials: Credentials?

    struct Current: CredentialProvider {
        func currentCredentials() async -> Credentials? { EndUser.credentials }
    }
}
// snippet.end

/// The app's own server (its HTTP framework's, usually a `Service` too); here, two requests.
struct AppServer: Service {
    let upstreamAPI: Client
    let cache: HTTPCache

    func run() async throws {
        // snippet.request
        // For each incoming request, as the user it acts for:
        let profile = try await EndUser.$credentials.withValue(.bearer("token-of-alice", identity: "alice")) {
            try await upstreamAPI.send(Profile())
        }
        // At that user's sign-out, their responses go, on every server of the fleet:
        _ = try? await cache.clear(identity: "alice")
        // snippet.end
        // snippet.hide
        precondition(profile["user"] == .string("Bearer token-of-alice"))
        let bob = try await EndUser.$credentials.withValue(.bearer("token-of-bob", identity: "bob")) {
            try await upstreamAPI.send(Profile())
        }
        precondition(bob["user"] == .string("Bearer token-of-bob"), "each call as its own user")
        let statistics = try await cache.statistics()
        precondition(statistics.failures >= 1 && statistics.hits == 0, "no database: counted, never served")
        print("calls answered without the database; storage failures counted: \(statistics.failures)")
        // snippet.show
    }
}

// snippet.setup
let logger = Logger(label: "api.upstream-cache")         // the storage's outage is logged here, once
let database = PostgresClient(
    configuration: .init(host: databaseHost, port: databasePort, username: "api", password: nil, database: "cache", tls: databaseTLS),
    backgroundLogger: logger)
let cache = HTTPCache(storage: PostgresCacheStorage(client: database, maximumSize: 2 << 30), logger: logger)
let upstreamAPI = Client(baseURL: upstream, middlewares: [CredentialsMiddleware(provider: EndUser.Current()), cache])
let server = AppServer(upstreamAPI: upstreamAPI, cache: cache)
// The pool runs as long as the server: not an `async let` that ends with its scope.
try await ServiceGroup(configuration: .init(
    services: [.init(service: database), .init(service: server, successTerminationBehavior: .gracefullyShutdownGroup)],
    gracefulShutdownSignals: [.sigterm], logger: logger)
).run()
// snippet.end
// snippet.hide
try await upstreamServer.shutdown()
