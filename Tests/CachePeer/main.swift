import Courier
import CourierAsyncHTTPClient
import CourierCache
import CourierCachePostgres
import CourierTestSupport
import Foundation
import Logging
import PostgresNIO

// A second server of a fleet, for the PostgreSQL fleet tests: a process of its own with a client,
// a cache and a PostgreSQL storage over the tests' database, which runs one command and prints
// what it got on one line.
//
//     courier-cache-peer PORT DATABASE ORIGIN get PATH USER     → "<source> <body>"
//     courier-cache-peer PORT DATABASE ORIGIN refresh PATH USER N → N network calls, each stored
//     courier-cache-peer PORT DATABASE ORIGIN signout USER        → clears USER's partition
//     courier-cache-peer PORT DATABASE ORIGIN herd PATH USER N GO → "ready", then once the file GO
//         exists, N concurrent gets, each with its own request id → "<source>=<body>@<ms after GO>…" in order

let arguments = CommandLine.arguments
guard arguments.count >= 6, let port = Int(arguments[1]), let origin = URL(string: arguments[3]) else {
    FileHandle.standardError.write(Data("usage: courier-cache-peer PORT DATABASE ORIGIN COMMAND ARGS…\n".utf8))
    exit(2)
}
let (database, command) = (arguments[2], arguments[4])
let configuration = PostgresClient.Configuration(
    host: "127.0.0.1", port: port, username: "courier", password: nil, database: database, tls: .disable)
let postgres = PostgresClient(configuration: configuration, backgroundLogger: Logger(label: "peer"))
let running = Task { await postgres.run() }
// A generous timeout: the fleet tests test behaviour, on a machine the whole suite loads.
let cache = HTTPCache(storage: PostgresCacheStorage(client: postgres, maximumSize: 50 << 20, timeout: .seconds(30)))

func client(for user: String) -> Client {
    Client(
        baseURL: origin, transport: AsyncHTTPClientTransport(),
        middlewares: [CredentialsMiddleware(provider: FleetMember.User(user)), cache])
}

do {
    switch command {
    case "get":
        let response = try await client(for: arguments[6]).response(for: FleetMember.Page(path: EndpointPath(stringLiteral: arguments[5])))
        await cache.flush()  // a store is written after the call returns: before the process ends
        print("\(response.source) \(String(decoding: response.value, as: UTF8.self))")
    case "refresh":
        let caller = client(for: arguments[6])
        for _ in 0..<(Int(arguments[7]) ?? 1) {
            _ = try await caller.send(FleetMember.Page(path: EndpointPath(stringLiteral: arguments[5])), cachePolicy: .networkOnly)
        }
        await cache.flush()
        print("refreshed")
    case "herd":
        let (caller, count, go) = (client(for: arguments[6]), Int(arguments[7]) ?? 1, arguments[8])
        FileHandle.standardOutput.write(Data("ready\n".utf8))  // unbuffered: the test waits for it
        let waitingSince = ContinuousClock.now
        while !FileManager.default.fileExists(atPath: go), ContinuousClock.now - waitingSince < .seconds(60) {
            try await Task.sleep(for: .milliseconds(2))
        }
        let released = ContinuousClock.now
        let sources = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<count {
                group.addTask {
                    let page = FleetMember.Page(path: EndpointPath(stringLiteral: arguments[5]), requestID: "peer-\(getpid())-\(index)")
                    let response = try await caller.response(for: page)
                    let took = (ContinuousClock.now - released).components
                    let milliseconds = took.seconds * 1000 + took.attoseconds / 1_000_000_000_000_000
                    return (index, "\(response.source)=\(String(decoding: response.value, as: UTF8.self))@\(milliseconds)ms")
                }
            }
            var sources = [String](repeating: "", count: count)
            for try await (index, source) in group { sources[index] = source }
            return sources
        }
        await caller.waitForBackgroundWork()  // a stale answer's revalidation, too
        await cache.flush()
        print(sources.joined(separator: " "))
    case "signout":
        try await cache.clear(identity: arguments[5])
        print("cleared")
    default:
        print("unknown command \(command)")
        exit(2)
    }
} catch {
    print("error \(error)")
    exit(1)
}
running.cancel()
