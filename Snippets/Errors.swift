// One error type for every failure: a family for the UI, a kind and the evidence for developers.
//
// Runs against an in-process MockServer: `swift run Errors`.

// snippet.hide
import CourierTesting

let server = try await MockServer.start()
server.route("GET", "/posts/1", respond: .json(#"{"message": "This post was deleted"}"#, status: 410))
server.route("GET", "/posts/2", respond: .json(#"{"id": "not a number"}"#))
let client = Client(baseURL: server.baseURL)
// snippet.show
import Courier
import Foundation

struct Post: Codable, Sendable { var id: Int }
struct GetPost: Endpoint {
    typealias Response = Post
    var id: Int
    var path: EndpointPath { "/posts/\(id)" }
}

// snippet.ui
// What a screen shows: three families, and nothing for a cancelled call.
func message(for error: CourierError) -> String? {
    if error.kind == .cancelled { return nil }
    switch error.family {
    case .noConnection: return "No Internet connection"
    case .server: return error.serverMessage          // the server's own words
    case .other: return "Something went wrong"
    }
}
// snippet.end

// snippet.typed
// `throws(CourierError)` is typed: the catch block's `error` is a CourierError,
// no cast needed. `errorDescription` gives the same three sentences.
func load(_ id: Int, client: Client) async -> String {
    do throws(CourierError) {
        let post = try await client.send(GetPost(id: id))
        return "post \(post.id)"
    } catch {
        print(error)   // the evidence, on one line, for logs and bug reports
        return message(for: error) ?? ""
    }
}
// snippet.end

// snippet.evidence
// The evidence a developer reads: the precise kind, the endpoint, the redacted
// request, the status and headers, a bounded body snippet and the cause.
func report(_ error: CourierError) -> [String: String] {
    [
        "kind": error.kind.description,                // "decodingFailed", "timedOut", "server"…
        "endpoint": error.endpoint ?? "-",             // "GetPost": bounded, safe as a label
        "request": error.request?.description ?? "-", // "GET https://api.example.com/posts/2"
        "status": error.status.map { "\($0.code)" } ?? "-",
        "detail": error.detail,                        // "missing key 'title' at [1].title"
        "body": error.bodySnippet ?? "",               // at most 1 KiB
    ]
}
// snippet.end

// snippet.hide
let check2 = await load(1, client: client)
precondition(check2 == "This post was deleted", "\(check2)")
do {
    _ = try await client.send(GetPost(id: 2))
    preconditionFailure("should fail to decode")
} catch {
    let evidence = report(error)
    precondition(evidence["kind"] == "decodingFailed" && evidence["endpoint"] == "GetPost", "\(evidence)")
}
try await server.shutdown()
let check3 = await load(1, client: client)
precondition(check3 == "No Internet connection", "\(check3)")
