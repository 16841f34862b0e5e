import Foundation

/// Turns the lines of a `text/event-stream` body into events, as the WHATWG HTML standard's
/// "event stream interpretation" says: `data` lines are joined with LF, `event` names the event,
/// `id` sets the last event id (kept for the events after it), `retry` the reconnection time, a line
/// starting with `:` is a comment, unknown fields are ignored, and a blank line dispatches the
/// event unless its data is empty.
struct ServerSentEventParser: Sendable {
    /// The most bytes the data of one event may hold.
    let limit: Int
    private var data: [UInt8] = []
    private var hasData = false
    private var name: String?
    private var retry: Duration?
    /// The id the `id` fields set so far; it becomes ``lastEventID`` when a blank line ends the block.
    private var idBuffer: String?
    /// The last event id of the events dispatched: it persists across events until another `id`
    /// field changes it, and an event cut off by the end of the body does not change it.
    private(set) var lastEventID: String?
    /// The reconnection time the server asked for last, if any.
    private(set) var reconnectionTime: Duration?
    private var isFirstLine = true

    /// The longest event id kept (1 KiB): a longer one is ignored, never sent back in `Last-Event-ID`.
    static let maximumIDLength = 1024

    /// The data of an event is longer than the limit.
    struct EventTooLarge: Error {}

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Reads one line; returns the event a blank line dispatches.
    /// - Throws: ``EventTooLarge`` when the data of the event grows past the limit.
    mutating func consume(_ line: ArraySlice<UInt8>) throws(EventTooLarge) -> StreamedEvent<Data>? {
        var line = line
        if isFirstLine {
            isFirstLine = false
            // A byte order mark at the start of the stream is not part of the first field.
            if line.starts(with: [0xEF, 0xBB, 0xBF]) { line = line.dropFirst(3) }
        }
        if line.isEmpty { return dispatch() }
        if line.first == UInt8(ascii: ":") { return nil }
        let field: ArraySlice<UInt8>
        var value: ArraySlice<UInt8>
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            field = line[..<colon]
            value = line[line.index(after: colon)...]
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        } else {
            field = line
            value = []
        }
        switch String(decoding: field, as: UTF8.self) {
        case "data":
            guard data.count + value.count + 1 <= limit else { throw EventTooLarge() }
            if hasData { data.append(UInt8(ascii: "\n")) }
            data.append(contentsOf: value)
            hasData = true
        case "event":
            name = String(decoding: value, as: UTF8.self)
        case "id":
            // An id with a NUL is ignored, as the standard says; so is one too long to send back
            // in a `Last-Event-ID` header field.
            if !value.contains(0), value.count <= Self.maximumIDLength { idBuffer = String(decoding: value, as: UTF8.self) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
               let milliseconds = Int64(String(decoding: value, as: UTF8.self)) {
                retry = .milliseconds(milliseconds)
                reconnectionTime = retry
            }
        default:
            break
        }
        return nil
    }

    /// The event gathered so far, or nil when its data is empty; either way the next event starts afresh.
    private mutating func dispatch() -> StreamedEvent<Data>? {
        defer {
            data = []
            hasData = false
            name = nil
            retry = nil
        }
        lastEventID = idBuffer
        guard hasData else { return nil }
        return StreamedEvent(Data(data), name: name, id: lastEventID, retry: retry, index: 0)
    }
}
