/// How a response body carries a stream of events.
///
/// A struct with static members rather than an enum, so that formats can be added without breaking callers.
public struct EventStreamFormat: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case serverSentEvents
        case jsonLines
    }

    let kind: Kind

    /// Server-sent events (`text/event-stream`): each event's `data` lines, joined with a line
    /// feed, are one value; `event`, `id` and `retry` come with it; comments are ignored.
    public static let serverSentEvents = EventStreamFormat(kind: .serverSentEvents)
    /// JSON Lines / NDJSON (`application/x-ndjson`, `application/jsonl`): each non-blank line is one value.
    public static let jsonLines = EventStreamFormat(kind: .jsonLines)

    /// The media type the request asks for in `Accept`.
    package var mediaType: String {
        switch kind {
        case .serverSentEvents: "text/event-stream"
        case .jsonLines: "application/x-ndjson"
        }
    }

    /// The format's name.
    public var description: String {
        switch kind {
        case .serverSentEvents: "server-sent events"
        case .jsonLines: "JSON Lines"
        }
    }
}
