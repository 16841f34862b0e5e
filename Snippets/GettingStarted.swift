// An endpoint, a service that groups it, and a client that sends it.
//
// Runs against an in-process MockServer: `swift run GettingStarted`.

// snippet.hide
import CourierTesting

let server = try await MockServer.start()
server.route("GET", "/users/42/friends", respond: .json(#"[{"id": 7, "name": "Ada", "city": "London"}]"#))

extension Client {
    /// The runnable copy sends to the in-process server instead of api.example.com.
    func pointed(at server: MockServer) -> Client {
        var client = self
        client.baseURL = server.baseURL
        return client
    }
}
// snippet.show

// snippet.describe
import Courier
import Foundation

struct User: Codable, Sendable {
    var id: Int
    var name: String
    var city: String?
}

// An endpoint names its response type; everything but the path has a default.
struct Friends: Endpoint {
    typealias Response = [User]
    let userID: Int
    var path: EndpointPath { "/users/\(userID)/friends" }   // interpolated values are escaped
    var parameters: Parameters { ["limit": 50] }              // the query of a GET
}
// snippet.end

// snippet.service
// A service groups the operations of one resource over a client.
struct FriendsService {
    let client: Client

    func friends(of userID: Int) async throws(CourierError) -> [User] {
        try await client.send(Friends(userID: userID))
    }
}
// snippet.end

// snippet.client
let client = Client(baseURL: URL(string: "https://api.example.com")!) { configuration in
    configuration.timeout = .seconds(15)
}
// snippet.end
// snippet.hide
    .pointed(at: server)
// snippet.show

// snippet.call
let service = FriendsService(client: client)
do throws(CourierError) {
    let friends = try await service.friends(of: 42)
    print(friends.map(\.name))
} catch {
    print(error.errorDescription ?? "Something went wrong")   // see the Errors article
}
// snippet.end

// snippet.hide
precondition(server.lastRequest?.target == "/users/42/friends?limit=50")
try await server.shutdown()
