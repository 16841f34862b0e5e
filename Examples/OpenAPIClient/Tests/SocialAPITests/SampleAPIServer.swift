import CourierTesting
import Foundation
import Synchronization

/// The routes of the demo's sample social API that `openapi.yaml` describes, served the same way on
/// a `MockServer` (the sample API itself is in Courier's `CourierExamples` target, not a product).
final class SampleAPIServer: Sendable {
    /// The server the routes run on.
    let server: MockServer
    private let state = Mutex(State())

    private struct State {
        var accessTokens: [String: Int] = [:]
        var refreshTokens: [String: Int] = [:]
        var issued = 0

        mutating func issueTokens(for userID: Int) -> Tokens {
            issued += 1
            let tokens = Tokens(token: "access-\(userID)-\(issued)", refreshToken: "refresh-\(userID)-\(issued)", userId: userID)
            accessTokens[tokens.token] = userID
            refreshTokens[tokens.refreshToken] = userID
            return tokens
        }
    }

    private struct Tokens: Encodable {
        var token: String
        var refreshToken: String
        var userId: Int
    }

    private struct Friend: Encodable {
        var id: Int
        var name: String
        var city: String?
    }

    private static let passwords = ["ann": (1, "secret"), "ben": (2, "hunter2")]
    private static let friends = [
        1: [Friend(id: 2, name: "Ben", city: "Berlin"), Friend(id: 3, name: "Chloé", city: "Paris")],
        2: [Friend(id: 1, name: "Ann", city: "Paris")],
    ]
    private static let feed = #"{"version":1,"posts":[{"author":"Ann","text":"Bonjour!"},{"author":"Ben","text":"Hallo!"}]}"#

    private init(server: MockServer) { self.server = server }

    /// Starts the routes on 127.0.0.1, on a free port.
    static func start() async throws -> SampleAPIServer {
        let api = SampleAPIServer(server: try await MockServer.start())
        api.installRoutes()
        return api
    }

    /// Makes every access token invalid, as `POST /admin/expire-tokens` does; refresh tokens still work.
    func expireAccessTokens() {
        state.withLock { $0.accessTokens = [:] }
    }

    private func installRoutes() {
        server.route("POST", "/login") { [self] request in
            struct Login: Decodable { var username: String; var password: String }
            guard let login = try? JSONDecoder().decode(Login.self, from: Data(request.body)),
                  let (userID, password) = Self.passwords[login.username.lowercased()], password == login.password
            else {
                return .json(#"{"message":"Wrong user name or password"}"#, status: 401)
            }
            return .json(state.withLock { $0.issueTokens(for: userID) })
        }
        server.route("POST", "/token/refresh") { [self] request in
            struct Refresh: Decodable { var refreshToken: String }
            let refresh = try? JSONDecoder().decode(Refresh.self, from: Data(request.body))
            let tokens = state.withLock { state -> Tokens? in
                guard let token = refresh?.refreshToken, let userID = state.refreshTokens.removeValue(forKey: token) else { return nil }
                return state.issueTokens(for: userID)
            }
            guard let tokens else { return .json(#"{"message":"Your session has ended, please sign in again"}"#, status: 401) }
            return .json(tokens)
        }
        server.route("GET", "/users/*") { [self] request in
            let parts = request.path.split(separator: "/")
            guard parts.count == 3, parts[2] == "friends", let userID = Int(parts[1]) else {
                return .json(#"{"message":"No such resource"}"#, status: 404)
            }
            let bearer = request.header("Authorization")?.replacingOccurrences(of: "Bearer ", with: "")
            guard let signedIn = state.withLock({ state in bearer.flatMap { state.accessTokens[$0] } }) else {
                return MockResponse.json(#"{"message":"Your token has expired"}"#, status: 401)
                    .adding(header: "WWW-Authenticate", value: #"Bearer error="invalid_token""#)
            }
            guard signedIn == userID else { return .json(#"{"message":"You can only see your own friends"}"#, status: 403) }
            let limit = request.queryValue("limit").flatMap(Int.init) ?? .max
            return .json(Array((Self.friends[userID] ?? []).prefix(limit)))
        }
        server.route("GET", "/feed") { request in
            let headers = [MockHeader("ETag", #""feed-1""#), MockHeader("Cache-Control", "max-age=5")]
            if request.header("If-None-Match") == #""feed-1""# { return .status(304, headers: headers) }
            return .json(Self.feed, headers: headers)
        }
    }
}
