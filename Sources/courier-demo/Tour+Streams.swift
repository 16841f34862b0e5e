import Courier
import CourierExamples
import CourierTesting
import Foundation

extension Tour {
    /// Step 12: a live score as server-sent events, decoded one goal at a time; the server cuts the
    /// first connection after three goals and the stream resumes after the last one it got.
    func liveScores(_ client: Client) async throws {
        Narrator.step(12, "Live scores: server-sent events as typed values; cut after three goals, resumed with Last-Event-ID")
        for try await goal in client.events(for: LiveScores()) {
            let score = goal.value
            Narrator.say("✓ event \(goal.id ?? "?") \(goal.name ?? ""): \(score.minute)' \(score.home)–\(score.away)")
        }
        Narrator.say("✓ the server answered 204 once the match was over: the stream ended")
        guard let api else { return }
        let connections = api.server.recordedRequests.filter { $0.path == "/live/scores" }
        let resumed = connections.map { $0.header("Last-Event-ID").map { "Last-Event-ID: \($0)" } ?? "no Last-Event-ID" }
        Narrator.say("✓ \(connections.count) connections (\(resumed.joined(separator: ", "))): the first was cut after event 3")
    }

    /// Step 13: a collection of posts walked page by page, each fetched when the loop asks for it.
    func postPages(_ client: Client) async throws {
        Narrator.step(13, "Pages: walk /posts by its Link rel=\"next\" headers, one request per page")
        var titles: [String] = []
        for try await page in client.pages(for: Posts()) {
            Narrator.say("✓ \(page.request.url): \(page.value.count) posts")
            titles += page.value.map(\.title)
        }
        Narrator.say("✓ \(titles.count) posts in all, from \"\(titles.first ?? "")\" to \"\(titles.last ?? "")\"")
    }
}

/// `GET /live/scores`: one event per goal.
struct LiveScores: EventStreamEndpoint {
    typealias Event = SampleScore
    var path: EndpointPath { "/live/scores" }
    var requiresAuthentication: Bool { false }
}

/// `GET /posts`: the first page; the server links the next ones.
struct Posts: Endpoint {
    typealias Response = [SamplePost]
    var path: EndpointPath { "/posts" }
}
