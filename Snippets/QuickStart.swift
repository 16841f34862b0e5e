// The README's code, verbatim: `ReadmeTests` checks that the README's Swift blocks are the
// visible slices of this file, and `swift build` compiles it.
//
// Runs against an in-process MockServer: `swift run QuickStart`.

// snippet.hide
import CourierTesting
import HTTPTypes

let server = try await MockServer.start()
server.route("GET", "/users/42/friends", respond: .json(#"[{"id": 7, "name": "Ada", "city": "London"}]"#))
let report = Array(repeating: UInt8(ascii: "r"), count: 100_000)
server.route("GET", "/reports/11", respond: .bytes(report, contentType: "application/pdf"))
server.route("POST", "/photos", respond: .json(#"{"id": 43}"#))
server.route("GET", "/live", respond: .text("one\ntwo\n"))

extension Client {
    /// The runnable copy sends to the in-process server instead of api.example.com.
    func pointed(at server: MockServer) -> Client {
        var client = self
        client.baseURL = server.baseURL
        return client
    }
}
// snippet.show

// snippet.quickstart
import Courier
import Foundation

struct User: Codable, Sendable { var id: Int; var name: String; var city: String? }

// An endpoint names its response type; everything but the path has a default.
struct Friends: Endpoint {
    typealias Response = [User]
    let userID: Int
    var limit = 50
    var path: EndpointPath { "/users/\(userID)/friends" }   // interpolated values are escaped
    var parameters: Parameters { ["limit": limit] }           // query for GET, JSON body for POST
}

// A service groups the operations of one resource over a client.
struct FriendsService {
    let client: Client
    func friends(of userID: Int) async throws(CourierError) -> [User] {
        try await client.send(Friends(userID: userID))
    }
}

let credentials = CredentialStore()
let client = Client(
    baseURL: URL(string: "https://api.example.com")!,
    middlewares: [CredentialsMiddleware(provider: credentials)]
) { $0.timeout = .seconds(15) }
// snippet.hide
    .pointed(at: server)
// snippet.show

do throws(CourierError) {
    let friends = try await FriendsService(client: client).friends(of: 42)
    print(friends.map(\.name))
} catch {
    switch error.family {
    case .noConnection: print("No Internet connection")
    case .server: print(error.errorDescription ?? "")   // the server's own message
    case .other: print("Something went wrong")          // error.description has the evidence
    }
}
// snippet.end

// snippet.hide
precondition(server.lastRequest?.target == "/users/42/friends?limit=50")

struct Report: Endpoint {
    typealias Response = Data
    var month: Int
    var path: EndpointPath { "/reports/\(month)" }
}
struct Photo: Codable, Sendable { var id: Int }
struct UploadPhoto: Endpoint {
    typealias Response = Photo
    var form: MultipartForm
    var method: HTTPRequest.Method { .post }
    var path: EndpointPath { "/photos" }
    var body: RequestBody? { .multipart(form) }
}
struct LiveScores: Endpoint {
    typealias Response = Data
    var path: EndpointPath { "/live" }
}
final class LineParser: @unchecked Sendable {
    var bytes = 0
    func consume(_ chunk: ArraySlice<UInt8>) { bytes += chunk.count }
}
let parser = LineParser()
let folder = FileManager.default.temporaryDirectory.appending(path: "courier-quickstart-\(UUID())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
let photoURL = folder.appending(path: "sunset.jpg")
try Data(repeating: 7, count: 10_000).write(to: photoURL)
// snippet.show

// snippet.transfers
let pdf = try await client.download(Report(month: 11), to: folder.appending(path: "nov.pdf")) { print($0.fractionCompleted ?? 0) }
_ = try await client.upload(UploadPhoto(form: MultipartForm([.field("caption", "Sunset"), .file("photo", photoURL)]))) { _ in }
for try await chunk in try await client.bytes(for: LiveScores()).value { parser.consume(chunk) }
// snippet.end

// snippet.hide
let downloaded = try Data(contentsOf: pdf.value)
precondition(downloaded.count == report.count)
precondition(parser.bytes == 8)

struct Score: Codable, Sendable { var home: Int; var away: Int }
struct Scores: EventStreamEndpoint {
    typealias Event = Score
    var path: EndpointPath { "/scores" }
}
struct Followers: Endpoint {
    typealias Response = [User]
    let userID: Int
    var path: EndpointPath { "/users/\(userID)/followers" }
}
server.route("GET", "/scores") { request in
    request.header("Last-Event-ID") == nil
        ? .text("retry: 1\nid: 1\ndata: {\"home\": 2, \"away\": 1}\n\n", contentType: "text/event-stream")
        : .status(204)
}
server.route("GET", "/users/42/followers") { request in
    request.queryValue("page") == nil
        ? .json(#"[{"id": 1, "name": "Grace"}]"#, headers: [MockHeader("Link", "</users/42/followers?page=2>; rel=\"next\"")])
        : .json(#"[{"id": 2, "name": "Alan"}]"#)
}
nonisolated(unsafe) var shown: [String] = []
func show(_ value: Score) { shown.append("\(value.home)-\(value.away)") }
func show(_ value: User) { shown.append(value.name) }
// snippet.show

// snippet.streams
for try await event in client.events(for: Scores()) { show(event.value) }
for try await user in client.pages(for: Followers(userID: 42)).items { show(user) }
// snippet.end

// snippet.hide
precondition(shown == ["2-1", "Grace", "Alan"])
try await server.shutdown()
try? FileManager.default.removeItem(at: folder)
