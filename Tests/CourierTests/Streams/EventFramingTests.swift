@testable import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// The line splitter and the server-sent events grammar as pure values, fed byte by byte.
@Suite struct EventFramingTests {
    private func lines(_ chunks: [String], limit: Int = 100) throws -> [String] {
        var reader = LineReader(limit: limit)
        var result: [String] = []
        for chunk in chunks {
            reader.append(Array(chunk.utf8))
            while let line = try reader.nextLine() { result.append(String(decoding: line, as: UTF8.self)) }
        }
        if let last = reader.finish() { result.append(String(decoding: last, as: UTF8.self)) }
        return result
    }

    @Test func linesEndAtLFCRLFOrCRWhereverTheChunksSplit() throws {
        let text = "a\r\nb\nc\rd\r\n\r\ne"
        #expect(try lines([text]) == ["a", "b", "c", "d", "", "e"])
        #expect(try lines(text.map { String($0) }) == ["a", "b", "c", "d", "", "e"], "a CRLF split across chunks is one end of line")
        #expect(try lines(["a\r", "\nb\r", "\r\n"]) == ["a", "b", ""])
    }

    @Test func aLineLongerThanTheLimitFails() throws {
        #expect(try lines(["0123456789\n"], limit: 10) == ["0123456789"])
        #expect(throws: LineReader.LineTooLong.self) { try lines(["01234", "567890"], limit: 10) }
        #expect(throws: LineReader.LineTooLong.self) { try lines(["01234567890\n"], limit: 10) }
    }

    @Test func serverSentEventsFollowTheStandard() throws {
        var parser = ServerSentEventParser(limit: 1000)
        var events: [StreamedEvent<Data>] = []
        let text = "\u{FEFF}data\n\n: comment\nid: 1\nevent: a\ndata: x\ndata:  y\nunknown: z\nretry: 12x\n\nid: 2\0\nretry: 30\n\n\ndata: last\n\n"
        for line in try lines([text]) {
            if let event = try parser.consume(ArraySlice(line.utf8)) { events.append(event) }
        }
        #expect(events.map { String(decoding: $0.value, as: UTF8.self) } == ["", "x\n y", "last"])
        #expect(events.map(\.name) == [nil, "a", nil])
        #expect(events.map(\.id) == [nil, "1", "1"], "an id with a NUL is ignored")
        #expect(events.map(\.retry) == [nil, nil, nil], "a retry of an event without data is kept for later, not dispatched")
        #expect(parser.reconnectionTime == .milliseconds(30))
    }
}

extension EventFramingTests {
    /// An id takes effect when its block ends: an event cut off by the end of the body does not move it.
    @Test func anIdCountsOnlyOnceItsBlockEnds() throws {
        var parser = ServerSentEventParser(limit: 1000)
        for line in ["id: 1", "data: a", "", "id: 2", "data: b"] {
            _ = try parser.consume(ArraySlice(line.utf8))
        }
        #expect(parser.lastEventID == "1")
        _ = try parser.consume([])
        #expect(parser.lastEventID == "2")
    }

    private struct Lines: EventStreamEndpoint {
        typealias Event = String
        var path: EndpointPath { "/lines" }
        var eventFormat: EventStreamFormat { .jsonLines }
    }

    /// A JSON Lines body whose last line, without its newline, runs past the bound fails as too
    /// large (not as a value that doesn't decode), whether it arrives whole or in pieces.
    @Test(arguments: [1, 7, 200])
    func aLastLineOverTheBoundIsTooLarge(chunkSize: Int) async throws {
        let bytes = Array("\"first\"\n".utf8) + Array(repeating: UInt8(ascii: "x"), count: 100)
        let chunks = stride(from: 0, to: bytes.count, by: chunkSize).map { ArraySlice(bytes[$0..<min(bytes.count, $0 + chunkSize)]) }
        let pieces = AsyncStream<ArraySlice<UInt8>> { continuation in
            for chunk in chunks { continuation.yield(chunk) }
            continuation.finish()
        }
        let body = HTTPBody(pieces, length: .known(Int64(bytes.count)))
        let context = DecodingContext(decoder: JSONDecoder(), response: HTTPResponse(status: .ok))
        let stream = ResponseEvents(endpoint: Lines(), body: body, context: context, limit: 50, evidence: { error in error })
        var iterator = stream.makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first?.value == "\"first\"", "a String event is the line's UTF-8 text")
        var caught: CourierError?
        do throws(CourierError) {
            _ = try await iterator.next()
        } catch {
            caught = error
        }
        #expect(caught?.kind == .bodyTooLarge)
    }
}
