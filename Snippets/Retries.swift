// Retries, timeouts, redirects and offline behaviour: middlewares and values you can read and change.
//
// Runs against an in-process MockServer: `swift run Retries`.

// snippet.hide
import CourierTesting

let server = try await MockServer.start()
server.route("GET", "/feed", script: [.status(503), .json(#"["hello"]"#)])
server.route("POST", "/payments", script: [.status(502), .json(#"{"ok": true}"#)])
server.route("GET", "/old-feed", respond: .status(301, headers: [MockHeader("Location", "/feed")]))
let api = server.baseURL
// snippet.show
import Courier
import Foundation
import HTTPTypes

struct Feed: Endpoint {
    typealias Response = [String]
    var path: EndpointPath { "/feed" }
    var timeout: Duration? { .seconds(5) }          // this endpoint's own per-attempt timeout
}

// snippet.idempotent
// POST is retried only when the endpoint opts into an `Idempotency-Key`: one value for
// every attempt of a call, so a server that implements the IETF draft acts once.
struct Pay: Endpoint {
    typealias Response = JSON
    var amount: Int
    var method: HTTPRequest.Method { .post }
    var path: EndpointPath { "/payments" }
    var parameters: Parameters { ["amount": amount] }
    var idempotencyKey: IdempotencyKey? { .generated }   // or .custom(yourOwnKey)
}
// snippet.end

// snippet.client
// The defaults: 3 attempts, full-jitter backoff up to 8 s, `Retry-After` honoured up to 20 s,
// 30 s for the whole call; idempotent methods; 408, 429, 500, 502, 503, 504; lost, refused
// and timed-out connections. Every setting is a field of `RetryPolicy`.
let policy = RetryPolicy(maximumAttempts: 4, baseDelay: .milliseconds(200), totalDeadline: .seconds(20))

let client = Client(baseURL: api, middlewares: [RetryMiddleware(policy: policy)]) { configuration in
    configuration.timeout = .seconds(15)      // one attempt, unless the endpoint sets its own
    configuration.maximumRedirects = 5        // 0 hands 3xx responses back as they are
}
// snippet.end

// snippet.offline
// Offline fails fast, with kind `noConnection` and family `.noConnection`.
func refresh() async -> [String] {
    do throws(CourierError) {
        return try await client.send(Feed())
    } catch where error.family == .noConnection {
        print("Offline: showing what we have")
        return []
    } catch {
        print(error)
        return []
    }
}
// snippet.end

// snippet.hide
let check4 = await refresh()
precondition(check4 == ["hello"], "\(check4)")
precondition(server.requestCount("/feed") == 2)
let paid = try await client.send(Pay(amount: 10))
precondition(paid["ok"]?.bool == true && server.requestCount("/payments") == 2)
struct OldFeed: Endpoint {
    typealias Response = [String]
    var path: EndpointPath { "/old-feed" }
}
server.route("GET", "/feed", respond: .json(#"["moved"]"#))
let check5 = try await client.send(OldFeed())
precondition(check5 == ["moved"], "\(check5)")
try await server.shutdown()
let check6 = await refresh()
precondition(check6 == [], "\(check6)")
