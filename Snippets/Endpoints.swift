// Endpoints and their parameters: query or body, escaping, enums of actions, envelopes, raw JSON.
//
// Runs against an in-process MockServer: `swift run Endpoints`.

// snippet.hide
import CourierTesting

let server = try await MockServer.start()
server.route("GET", "/search", respond: .json(#"[]"#))
server.route("POST", "/posts", respond: .json(#"{"id": 1}"#, status: 201))
server.route("GET", "/files/*", respond: .json(#"{"name": "a b"}"#))
server.route("POST", "/api/v1/threads.*", respond: .json(#"{"success": true}"#))
server.route("POST", "/bind", respond: .json(#"{"code": 1001, "msg": "Wrong code"}"#))
server.route("GET", "/threads/7", respond: .json(#"{"status": "ok", "data": {"members": [{"name": "Ada"}]}}"#))
let client = Client(baseURL: server.baseURL)
// snippet.show
import Courier
import Foundation
import HTTPTypes

// snippet.query
// GET: parameters become the query. Variables of common types go in as they are;
// a nil optional is left out, arrays repeat the name, dates are ISO 8601.
struct Search: Endpoint {
    typealias Response = [String]
    var text: String
    var tags: [String] = []
    var since: Date?
    var path: EndpointPath { "/search" }
    var parameters: Parameters { ["q": text, "tags": tags, "since": since] }
}
// snippet.end

// snippet.body
// POST: the same parameters become a JSON body; `body` takes any Encodable value instead.
struct NewPost: Codable, Sendable { var title: String; var draft: Bool }
struct CreatedID: Codable, Sendable { var id: Int }

struct CreatePost: Endpoint {
    typealias Response = CreatedID
    var post: NewPost
    var method: HTTPRequest.Method { .post }
    var path: EndpointPath { "/posts" }
    var body: RequestBody? { .json(post) }
    var query: Parameters { ["notify": true] }   // always in the URL, whatever the method
}
// snippet.end

// snippet.escaping
// Interpolated path values are escaped: "a b/c" stays one segment, /files/a%20b%2Fc.
struct FileInfo: Endpoint {
    typealias Response = JSON
    var name: String
    var path: EndpointPath { "/files/\(name)" }
}
// snippet.end

// snippet.actions
// One enum for a family of actions: each case gives its method, path and parameters.
enum ThreadAction: Endpoint {
    typealias Response = JSON
    case addMembers(threadID: String, members: [String])
    case delete(threadID: String)

    var method: HTTPRequest.Method { .post }
    var path: EndpointPath {
        switch self {
        case .addMembers: "/api/v1/threads.addMembers"
        case .delete: "/api/v1/threads.delete"
        }
    }
    var parameters: Parameters {
        switch self {
        case .addMembers(let threadID, let members): ["threadId": threadID, "members": members]
        case .delete(let threadID): ["threadId": threadID]
        }
    }
}
// snippet.end

// snippet.envelope
// `{code, msg, data}`: the call returns `data` when code == 0 and throws otherwise,
// even inside a 200.
struct Account: Codable, Sendable { var accountId: String }

struct BindPhone: EnvelopedEndpoint {
    typealias Envelope = CodeMessageEnvelope<Account>
    var phone: String
    var code: String
    var method: HTTPRequest.Method { .post }
    var path: EndpointPath { "/bind" }
    var parameters: Parameters { ["phone": phone, "code": code] }
}
// snippet.end

// snippet.json
// A loosely specified response: decode into JSON and read it with typed accessors.
struct RawThread: Endpoint {
    typealias Response = JSON
    var id: Int
    var path: EndpointPath { "/threads/\(id)" }
}

func firstMemberName(client: Client) async throws(CourierError) -> String? {
    let thread = try await client.send(RawThread(id: 7))
    guard thread["status"]?.string == "ok" else { return nil }
    return thread[path: "data.members.0.name"]?.string   // or thread["data"]?["members"]?[0]?["name"]
}
// snippet.end

// snippet.hide
_ = try await client.send(Search(text: "swift", tags: ["a", "b"]))
precondition(server.lastRequest?.target == "/search?q=swift&tags=a&tags=b", "\(server.lastRequest!.target)")
let created = try await client.send(CreatePost(post: NewPost(title: "Hi", draft: false)))
precondition(created.id == 1 && server.lastRequest?.target == "/posts?notify=true")
_ = try await client.send(FileInfo(name: "a b/c"))
precondition(server.lastRequest?.target == "/files/a%20b%2Fc", "\(server.lastRequest!.target)")
_ = try await client.send(ThreadAction.addMembers(threadID: "t1", members: ["u1", "u2"]))
precondition(server.lastRequest?.bodyText.contains(#""members":["u1","u2"]"#) == true)
do {
    _ = try await client.send(BindPhone(phone: "+44", code: "0000"))
    preconditionFailure("the envelope should fail the call")
} catch {
    precondition(error.kind == .envelope && error.serverMessage == "Wrong code")
}
let check1 = try await firstMemberName(client: client)
precondition(check1 == "Ada", String(describing: check1))
try await server.shutdown()
