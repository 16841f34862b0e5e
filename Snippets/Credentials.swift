// Credentials in header fields, one token refresh for any number of 401s, and signing out.
//
// Runs against an in-process MockServer: `swift run Credentials`.

// snippet.hide
import CourierTesting

let server = try await MockServer.start()
server.route("GET", "/me") { request in
    request.header("Authorization") == "Bearer fresh"
        ? .json(#"{"name": "Ada"}"#)
        : .json(#"{"message": "token expired"}"#, status: 401)
}
server.route("POST", "/oauth/token", respond: .json(#"{"access_token": "fresh", "refresh_token": "r2"}"#))
let api = server.baseURL
// snippet.show
import Courier
import Foundation
import HTTPTypes

struct Me: Codable, Sendable { var name: String }
struct Profile: Endpoint {
    typealias Response = Me
    var path: EndpointPath { "/me" }
}

// snippet.refreshEndpoint
// The refresh call itself: sent without the user's credentials.
struct Tokens: Codable, Sendable { var access_token: String; var refresh_token: String }
struct RefreshToken: Endpoint {
    typealias Response = Tokens
    var refreshToken: String
    var method: HTTPRequest.Method { .post }
    var path: EndpointPath { "/oauth/token" }
    var parameters: Parameters { ["grant_type": "refresh_token", "refresh_token": refreshToken] }
    var requiresAuthentication: Bool { false }
}
// snippet.end

// snippet.client
// The signed-in user: header fields, a stable identity (never the token), a refresh token.
let credentials = CredentialStore(.bearer("expired", identity: "user-42", refreshToken: "r1"))

// The auth client has no refresh middleware of its own: a refused refresh ends the session.
let auth = Client(baseURL: api)

let client = Client(baseURL: api, middlewares: [
    TokenRefreshMiddleware(store: credentials) { old in
        let tokens = try await auth.send(RefreshToken(refreshToken: old.refreshToken ?? ""))
        return .bearer(tokens.access_token, identity: old.identity, refreshToken: tokens.refresh_token)
    },
    CredentialsMiddleware(provider: credentials),
])
// snippet.end

// snippet.signOut
// A refused refresh token signs the store out once and fails every waiting call with
// `sessionExpired`; an offline refresh keeps the session. Sign-out observers clear the
// user's data (HTTPCache.clearPartition(onSignOutOf:) does that for the cache).
credentials.onSignOut { identity in
    print("signed out:", identity ?? "nobody")
}

func showProfile() async {
    do throws(CourierError) {
        let me = try await client.send(Profile())   // a 401 refreshes once, then replays
        print("Hello,", me.name)
    } catch where error.kind == .sessionExpired {
        print("Please sign in again")
    } catch {
        print(error.errorDescription ?? "")
    }
}
// snippet.end

// snippet.hide
await showProfile()
precondition(credentials.credentials?.headers[.authorization] == "Bearer fresh")
precondition(server.requestCount("/oauth/token") == 1 && server.requestCount("/me") == 2)
try await server.shutdown()
