import Courier
import CourierTesting
import Foundation
import HTTPTypes

/// The sample social-network API the demo tour and the example tests talk to, served by ``MockServer``.
///
/// Routes: `POST /login`, `POST /token/refresh`, `POST /admin/expire-tokens`,
/// `GET|POST /users/{id}/friends`, `DELETE /users/{id}/friends/{friendId}`, `POST /bind`
/// (`{code,msg,data}` envelope), `GET|POST /api/v1/threads.*` (RocketChat-style, `X-Auth-Token` +
/// `X-User-Id`), `GET /feed` (cacheable, with an ETag), `GET /slow` (drips its body), and
/// `GET /flaky` (503 twice with `Retry-After`, then 200), `POST /photos` (a multipart upload; answers
/// the parts it found) and `GET /packs/offline.bin` (4 MiB with ranges and an ETag, dripped; the
/// first answer is cut halfway), `GET /live/scores` (server-sent events; the first connection is
/// cut after three, `Last-Event-ID` resumes, `204` after the last) and `GET /posts?page=` (three pages linked with
/// `Link: <…>; rel="next"`), `POST /messages` (honours `Idempotency-Key`: a repeat gets the first
/// answer and changes nothing) and `GET /messages`.
public final class SampleSocialAPI: Sendable {
    /// The server the API runs on.
    public let server: MockServer
    let state = Locked(SocialState())

    private init(server: MockServer) { self.server = server }

    /// Starts the API on 127.0.0.1 (port 0 picks a free port).
    public static func start(port: Int = 0) async throws -> SampleSocialAPI {
        let api = SampleSocialAPI(server: try await MockServer.start(port: port))
        api.installRoutes()
        return api
    }

    /// The base URL clients use.
    public var baseURL: URL { server.baseURL }

    /// Stops the server.
    public func shutdown() async throws { try await server.shutdown() }

    private func installRoutes() {
        server.route("POST", "/login") { [state] request in
            guard let body = try? JSONDecoder().decode(LoginBody.self, from: Data(request.body)) else {
                return .json(#"{"message":"Send a JSON body with username and password"}"#, status: 400)
            }
            return state.withLock { state in
                guard let (userID, password) = state.passwords[body.username.lowercased()], password == body.password else {
                    return .json(#"{"message":"Wrong user name or password"}"#, status: 401)
                }
                let tokens = state.issueTokens(for: userID)
                return .json(TokenBody(token: tokens.access, refreshToken: tokens.refresh, userId: userID))
            }
        }
        server.route("POST", "/token/refresh") { [state] request in
            let body = try? JSONDecoder().decode(RefreshBody.self, from: Data(request.body))
            return state.withLock { state in
                guard let token = body?.refreshToken, let userID = state.refreshTokens.removeValue(forKey: token) else {
                    return .json(#"{"message":"Your session has ended, please sign in again"}"#, status: 401)
                }
                let tokens = state.issueTokens(for: userID)
                return .json(TokenBody(token: tokens.access, refreshToken: tokens.refresh, userId: userID))
            }
        }
        server.route("POST", "/admin/expire-tokens") { [state] _ in
            state.withLock { $0.accessTokens = [:] }
            return .status(204)
        }
        server.route(nil, "/users/*") { [state] request in Self.users(request, state) }
        server.route("POST", "/bind") { [state] request in
            let body = (try? JSONDecoder().decode([String: String].self, from: Data(request.body))) ?? [:]
            guard let phone = body["phone"], body["code"] == "0000" else {
                return .json(#"{"code":1002,"msg":"The confirmation code is wrong"}"#)
            }
            return state.withLock { state in
                guard state.boundPhones.insert(phone).inserted else {
                    return .json(#"{"code":1001,"msg":"This phone number is already bound to another account"}"#)
                }
                return .json(#"{"code":0,"msg":"ok","data":{"accountId":"acc-1","phone":"\#(phone)"}}"#)
            }
        }
        server.route(nil, "/api/v1/threads.*") { [state] request in
            let signedIn = state.withLock { state in
                request.header("X-Auth-Token").flatMap { state.accessTokens[$0] }.map(String.init) == request.header("X-User-Id")
            }
            guard signedIn, request.header("X-User-Id") != nil else {
                return .json(#"{"status":"error","message":"You must be logged in to do this."}"#, status: 401)
            }
            let action = request.path.replacingOccurrences(of: "/api/v1/threads.", with: "")
            return .json(#"{"success":true,"action":"\#(action)","threadId":"\#(request.queryValue("threadId") ?? "")"}"#)
        }
        server.route("GET", "/feed") { [state] request in
            let version = state.withLock { $0.feedVersion }
            let etag = "\"feed-\(version)\""
            if request.header("If-None-Match") == etag {
                return .status(304, headers: [MockHeader("ETag", etag), MockHeader("Cache-Control", "max-age=5")])
            }
            return .json(
                #"{"version":\#(version),"posts":[{"author":"Ann","text":"Bonjour!"},{"author":"Ben","text":"Hallo!"}]}"#,
                headers: [MockHeader("ETag", etag), MockHeader("Cache-Control", "max-age=5")]
            )
        }
        server.route("POST", "/feed") { [state] _ in
            state.withLock { $0.feedVersion += 1 }
            return .status(201)
        }
        server.route("GET", "/slow", respond: MockResponse.json("[" + String(repeating: "1,", count: 2000) + "1]").with(fault: .drip(chunkSize: 64, interval: .milliseconds(50))))
        installTransferRoutes()
        server.route("GET", "/flaky", script: [
            .retryAfter(seconds: 1), .retryAfter(seconds: 1), .json(#"{"status":"ok","message":"Third time lucky"}"#),
        ])
    }

    /// A multipart upload and a large, resumable download.
    private func installTransferRoutes() {
        server.route("POST", "/photos") { request in
            let boundary = request.header("Content-Type")?.components(separatedBy: "boundary=").last ?? ""
            let parts = max(0, request.bodyText.components(separatedBy: "--" + boundary).count - 2)
            return .json(#"{"parts":\#(parts),"bytes":\#(request.body.count)}"#, status: 201)
        }
        let pack = Self.pack
        let served = Locked(0)
        server.route("GET", "/packs/offline.bin") { request in
            let first = served.withLock { count in
                defer { count += 1 }
                return count == 0
            }
            let response = MockResponse.ranged(pack, for: request, etag: "\"pack-1\"")
            return response.with(fault: first ? .closeMidBody(afterBytes: pack.count / 2) : .drip(chunkSize: 64 << 10, interval: .milliseconds(40)))
        }
        installStreamRoutes()
        installMessageRoutes()
    }

    /// 4 MiB for the download, built once: 64 copies of a 64 KiB pattern, each copy marked with its
    /// number so no two are alike (a misplaced range shows).
    private static let pack: [UInt8] = {
        let pattern = (0..<(64 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 12) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 * pattern.count)
        for copy in 0..<64 {
            bytes.append(UInt8(copy))
            bytes.append(contentsOf: pattern.dropFirst())
        }
        return bytes
    }()

    /// `/users/{id}/friends[/{friendId}]`, for the signed-in user only.
    private static func users(_ request: RecordedRequest, _ state: Locked<SocialState>) -> MockResponse {
        let parts = request.path.split(separator: "/").map(String.init)
        guard parts.count >= 3, parts[2] == "friends", let userID = Int(parts[1]) else {
            return .json(#"{"message":"No such resource"}"#, status: 404)
        }
        return state.withLock { state in
            let bearer = request.header("Authorization")?.replacingOccurrences(of: "Bearer ", with: "")
            guard let bearer, let signedIn = state.accessTokens[bearer] else {
                return MockResponse.json(#"{"message":"Your token has expired"}"#, status: 401)
                    .adding(header: "WWW-Authenticate", value: #"Bearer error="invalid_token""#)
            }
            guard signedIn == userID else { return .json(#"{"message":"You can only see your own friends"}"#, status: 403) }
            switch (request.method, parts.count) {
            case ("GET", 3):
                let limit = request.queryValue("limit").flatMap(Int.init) ?? .max
                let friends = (state.friends[userID] ?? []).compactMap { state.users[$0] }.prefix(limit)
                return .json(Array(friends))
            case ("POST", 3):
                guard let body = try? JSONDecoder().decode([String: Int].self, from: Data(request.body)), let friendID = body["friendId"] else {
                    return .json(#"{"message":"Send {\"friendId\": <id>}"}"#, status: 400)
                }
                guard state.users[friendID] != nil else { return .json(#"{"message":"User \#(friendID) does not exist"}"#, status: 404) }
                if !(state.friends[userID] ?? []).contains(friendID) { state.friends[userID, default: []].append(friendID) }
                return .status(204)
            case ("DELETE", 4):
                guard let friendID = Int(parts[3]) else { return .json(#"{"message":"Bad friend id"}"#, status: 400) }
                state.friends[userID]?.removeAll { $0 == friendID }
                return .status(204)
            default:
                return .json(#"{"message":"Method not allowed"}"#, status: 405)
            }
        }
    }
}

struct LoginBody: Codable { var username: String; var password: String }
struct RefreshBody: Codable { var refreshToken: String }
/// The token answer of `/login` and `/token/refresh`.
public struct TokenBody: Codable, Sendable {
    /// The access token.
    public var token: String
    /// The refresh token.
    public var refreshToken: String
    /// The signed-in user.
    public var userId: Int
}

