// The five tasks of the migration guide, written with Courier.
//
// Runs against an in-process MockServer: `swift run Migrating`.

// snippet.hide
import CourierTesting

let server = try await MockServer.start()
server.route("GET", "/users/42", respond: .json(#"{"id": 42, "name": "Ada"}"#))
server.route("POST", "/users", respond: .json(#"{"id": 43, "name": "Grace"}"#, status: 201))
server.route("POST", "/avatars", respond: .json(#"{"id": 1}"#))
server.route("GET", "/users/0", respond: .json(#"{"message": "No such user"}"#, status: 404))
let api = server.baseURL
let folder = FileManager.default.temporaryDirectory.appending(path: "courier-migrating-\(UUID())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
let avatarFile = folder.appending(path: "avatar.png")
try Data(repeating: 1, count: 10_000).write(to: avatarFile)
struct AuthAPI: Sendable {
    func refresh(_ old: Credentials) async throws -> Credentials { old }
}
let authAPI = AuthAPI()
func show(_ text: String) {}
// snippet.show
import Courier
import Foundation
import HTTPTypes

struct User: Codable, Sendable { var id: Int; var name: String }

// snippet.get
// 1. A GET decoding JSON.
struct GetUser: Endpoint {
    typealias Response = User
    var id: Int
    var path: EndpointPath { "/users/\(id)" }
}
// snippet.end

// snippet.post
// 2. A POST with a JSON body.
struct NewUser: Codable, Sendable { var name: String }
struct CreateUser: Endpoint {
    typealias Response = User
    var user: NewUser
    var method: HTTPRequest.Method { .post }
    var path: EndpointPath { "/users" }
    var body: RequestBody? { .json(user) }
}
// snippet.end

// snippet.auth
// 3. An auth header on every request, refreshed once on 401.
let credentials = CredentialStore(.bearer("token", identity: "42", refreshToken: "refresh"))
let client = Client(baseURL: api, middlewares: [
    TokenRefreshMiddleware(store: credentials) { old in try await authAPI.refresh(old) },
    CredentialsMiddleware(provider: credentials),
])
// snippet.end

// snippet.upload
// 4. An upload with progress.
struct UploadAvatar: Endpoint {
    typealias Response = JSON
    var file: URL
    var method: HTTPRequest.Method { .post }
    var path: EndpointPath { "/avatars" }
    var body: RequestBody? { .multipart(MultipartForm([.file("avatar", file, contentType: "image/png")])) }
}
// snippet.end

// snippet.calls
// 5. The calls, and error handling: one error type, three families for the UI.
func run() async {
    do throws(CourierError) {
        let user = try await client.send(GetUser(id: 42))
        let created = try await client.send(CreateUser(user: NewUser(name: "Grace")))
        _ = try await client.upload(UploadAvatar(file: avatarFile)) { progress in
            print(progress.fractionCompleted ?? 0)
        }
        print(user.name, created.id)
        _ = try await client.send(GetUser(id: 0))
    } catch {
        switch error.family {
        case .noConnection: show("No Internet connection")
        case .server: show(error.serverMessage ?? "")   // "No such user"
        case .other: show("Something went wrong")       // `print(error)` has the evidence
        }
    }
}
// snippet.end

// snippet.hide
await run()
precondition(server.requestCount("/users/0") == 1 && server.requestCount("/avatars") == 1)
try await server.shutdown()
try? FileManager.default.removeItem(at: folder)
