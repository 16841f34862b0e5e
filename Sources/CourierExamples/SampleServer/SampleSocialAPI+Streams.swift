import Courier
import CourierTesting
import Foundation

/// The sample API's live and paged routes: `GET /live/scores` (server-sent events, `204` once a
/// client has them all) and `GET /posts` (pages linked with `Link: <…>; rel="next"`).
extension SampleSocialAPI {
    func installStreamRoutes() {
        // The first connection of the server's life is cut after three events, so a client shows
        // how it resumes: asking again with `Last-Event-ID` gets the events after that one.
        let cutOnce = Locked(true)
        server.route("GET", "/live/scores") { request in
            let after = request.header("Last-Event-ID").flatMap(Int.init) ?? 0
            let events = Self.scoreEvents.filter { $0.id > after }
            // The match is over: 204 tells an EventSource not to come back.
            guard !events.isEmpty else { return .status(204) }
            let text = "retry: 200\n\n" + events.map(\.text).joined()
            let response = MockResponse.text(text, contentType: "text/event-stream", headers: [MockHeader("Cache-Control", "no-store")])
            let cut = cutOnce.withLock { first in
                defer { first = false }
                return first && after == 0
            }
            guard cut else { return response.with(fault: .drip(chunkSize: 64, interval: .milliseconds(20))) }
            let threeEvents = "retry: 200\n\n" + events.prefix(3).map(\.text).joined()
            return response.with(fault: .closeMidBody(afterBytes: threeEvents.utf8.count + 10))
        }
        server.route("GET", "/posts") { request in
            let page = request.queryValue("page").flatMap(Int.init) ?? 1
            guard (1...Self.postPages).contains(page) else { return .json(#"{"message":"No such page"}"#, status: 404) }
            let first = (page - 1) * Self.postsPerPage + 1
            let posts = (first..<first + Self.postsPerPage).map { SamplePost(id: $0, title: "Post \($0)") }
            let link = page < Self.postPages ? [MockHeader("Link", #"</posts?page=\#(page + 1)>; rel="next""#)] : []
            return .json(posts, headers: link)
        }
    }

    private static let postPages = 3
    private static let postsPerPage = 4

    /// Six goals of a match, one event each.
    private static let scoreEvents: [(id: Int, text: String)] = [
        (12, 1, 0), (27, 1, 1), (45, 2, 1), (61, 2, 2), (78, 3, 2), (90, 3, 3),
    ].enumerated().map { index, goal in
        let id = index + 1
        return (id, "id: \(id)\nevent: goal\ndata: {\"minute\":\(goal.0),\"home\":\(goal.1),\"away\":\(goal.2)}\n\n")
    }
}

/// One post of `GET /posts`.
public struct SamplePost: Codable, Sendable, Hashable {
    /// The post's number, from 1.
    public var id: Int
    /// Its title.
    public var title: String
}

/// One event of `GET /live/scores`: the score after a goal.
public struct SampleScore: Codable, Sendable, Hashable {
    /// The minute of the goal.
    public var minute: Int
    /// The home team's goals.
    public var home: Int
    /// The away team's goals.
    public var away: Int
}
