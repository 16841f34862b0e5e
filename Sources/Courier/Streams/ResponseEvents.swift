import Foundation
import HTTPTypes
import OpenAPIRuntime

/// The events of one response, decoded as they arrive; read once, by one ``EventStream`` connection.
///
/// Each line and each event is bounded (``EventStreamEndpoint/maximumEventSize``); the endpoint's
/// timeout applies between bytes, so a server silent for longer between events fails with
/// ``CourierError/Kind/timedOut``. Every failure is a ``CourierError`` with the call's evidence:
/// an event that does not decode fails with ``CourierError/Kind/decodingFailed`` and names the event.
struct ResponseEvents<E: EventStreamEndpoint>: Sendable {
    let endpoint: E
    let body: HTTPBody
    let context: DecodingContext
    let limit: Int
    /// Fills in the call's evidence (endpoint, request, status, headers) on an error.
    let evidence: @Sendable (CourierError) -> CourierError

    /// Creates the iterator; the body can be read once.
    func makeAsyncIterator() -> Iterator {
        Iterator(stream: self)
    }

    /// Reads the body's chunks and hands over one event at a time.
    struct Iterator {
        private let stream: ResponseEvents
        private var chunks: HTTPBody.AsyncIterator
        private var lines: LineReader
        /// The server-sent events grammar; nil for JSON Lines. Kept outside an enum so that a line
        /// appends to the event's data in place, not to a copy.
        private var parser: ServerSentEventParser?
        private var index = 0
        private var isFinished = false

        init(stream: ResponseEvents) {
            self.stream = stream
            chunks = stream.body.makeAsyncIterator()
            lines = LineReader(limit: stream.limit)
            switch stream.endpoint.eventFormat.kind {
            case .serverSentEvents: parser = ServerSentEventParser(limit: stream.limit)
            case .jsonLines: parser = nil
            }
        }

        /// The last event id the server sent (server-sent events only).
        var lastEventID: String? {
            parser?.lastEventID
        }

        /// The reconnection time the server asked for last (server-sent events only).
        var reconnectionTime: Duration? {
            parser?.reconnectionTime
        }

        /// The next event, or nil once the server has ended the body.
        /// - Throws: ``CourierError``: the connection failed or timed out, a line or event was too large,
        ///   or an event did not decode.
        mutating func next() async throws(CourierError) -> StreamedEvent<E.Event>? {
            while !isFinished {
                guard let raw = try await nextRaw() else { break }
                index += 1
                do {
                    guard let value = try stream.endpoint.decodeEvent(raw, context: stream.context) else { continue }
                    return raw.withValue { _ in value }
                } catch {
                    isFinished = true
                    throw stream.evidence(CourierError(
                        .decodingFailed, detail: "\(raw.label) could not be decoded: \(error)", body: raw.value, underlying: error))
                }
            }
            isFinished = true
            return nil
        }

        /// The next event's raw data: from the lines already read, else after reading more bytes.
        private mutating func nextRaw() async throws(CourierError) -> StreamedEvent<Data>? {
            while true {
                let line: ArraySlice<UInt8>
                let whole: ArraySlice<UInt8>?
                do {
                    whole = try lines.nextLine()
                } catch {
                    throw tooLarge("a line of the event stream grew past \(stream.limit) bytes without an end (\(error.length) bytes read) at event #\(index)")
                }
                if let whole {
                    line = whole
                } else if let chunk = try await nextChunk() {
                    lines.append(chunk)
                    continue
                } else if let last = lines.finish(), parser == nil {
                    line = last
                } else {
                    // The body ended: an event without its closing blank line is dropped, as the standard says.
                    return nil
                }
                if let event = try frame(line) { return event }
            }
        }

        /// One line through the format: an event, or nil when the line does not complete one.
        private mutating func frame(_ line: ArraySlice<UInt8>) throws(CourierError) -> StreamedEvent<Data>? {
            guard parser != nil else {
                // JSON Lines: blank lines (and a CR before the LF) are not values.
                let trimmed = line.trimmingASCIIWhitespace()
                guard !trimmed.isEmpty else { return nil }
                return StreamedEvent(Data(trimmed), index: index)
            }
            do {
                guard var event = try parser?.consume(line) else { return nil }
                event.index = index
                return event
            } catch {
                throw tooLarge("the data of event #\(index) grew past \(stream.limit) bytes")
            }
        }

        private mutating func nextChunk() async throws(CourierError) -> ArraySlice<UInt8>? {
            do {
                return try await chunks.next()
            } catch {
                isFinished = true
                throw stream.evidence(CourierError.from(transportError: error))
            }
        }

        private mutating func tooLarge(_ detail: String) -> CourierError {
            isFinished = true
            return stream.evidence(CourierError(.bodyTooLarge, detail: detail))
        }
    }
}

@available(*, unavailable)
extension ResponseEvents.Iterator: Sendable {}

extension ArraySlice<UInt8> {
    /// The bytes without leading and trailing spaces, tabs, CRs and LFs.
    func trimmingASCIIWhitespace() -> ArraySlice<UInt8> {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return [] }
        return self[first...last]
    }
}
