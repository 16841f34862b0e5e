import Foundation

/// One event of a response that streams events: its value and, for server-sent events, its name,
/// last event id and reconnection time.
public struct StreamedEvent<Value: Sendable>: Sendable {
    /// The decoded value (the raw data for `StreamedEvent<Data>`).
    public var value: Value
    /// The event's name (its `event` field), or nil for the default `message` event and for JSON Lines.
    public var name: String?
    /// The last event id the server sent (an `id` field of this or an earlier event); nil for JSON Lines.
    public var id: String?
    /// The reconnection time this event's `retry` field asked for, if it had one.
    public var retry: Duration?
    /// The event's place in the response, from 0 (events skipped by the endpoint are counted too).
    public var index: Int

    /// An event from its parts (`CourierTesting` gives tests `init(value:name:id:retry:index:)`).
    package init(_ value: Value, name: String? = nil, id: String? = nil, retry: Duration? = nil, index: Int) {
        self.value = value
        self.name = name
        self.id = id
        self.retry = retry
        self.index = index
    }

    /// The same event with another value.
    package func withValue<T: Sendable>(_ transform: (Value) throws -> T) rethrows -> StreamedEvent<T> {
        StreamedEvent<T>(try transform(value), name: name, id: id, retry: retry, index: index)
    }

    /// How the event is named in an error: its index, name and id.
    var label: String {
        var parts = ["event #\(index)"]
        if let name { parts.append("\"\(name)\"") }
        if let id { parts.append("id \(id)") }
        return parts.joined(separator: " ")
    }
}
