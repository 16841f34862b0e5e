import Courier
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// Server-sent events and JSON Lines decoded into values as they arrive, over both transports.
@Suite struct EventStreamTests {
    private struct Scores: EventStreamEndpoint {
        typealias Event = Item
        var format: EventStreamFormat = .serverSentEvents
        var path: EndpointPath = "/events"
        var maximumEventSize: Int? = nil
        var eventFormat: EventStreamFormat { format }
    }

    /// Skips events named `ping`, decodes the others.
    private struct Named: EventStreamEndpoint {
        typealias Event = Item
        var path: EndpointPath { "/events" }
        func decodeEvent(_ event: StreamedEvent<Data>, context: DecodingContext) throws -> Item? {
            event.name == "ping" ? nil : try context.decode(Item.self, from: event.value)
        }
    }

    private static let sse = """
        : a comment the client ignores\r
        retry: 2500\r
        data: {"id": 1,\r
        data:  "title": "one"}\r
        \r
        event: score\r
        id: 7\r
        data:{"id":2,"title":"two"}\r
        \r
        event: ping\r
        data: {}\r
        \r
        data: {"id":3,"title":"three"}\r
        \r
        data: {"id":4,"title":"cut before its blank line"}\r

        """

    private func collect<E>(_ stream: EventStream<E>) async throws -> [StreamedEvent<E.Event>] {
        var events: [StreamedEvent<E.Event>] = []
        for try await event in stream { events.append(event) }
        return events
    }

    private func checkScores(_ events: [StreamedEvent<Item>]) {
        #expect(events.map(\.value.id) == [1, 2, 3])
        #expect(events.map(\.value.title) == ["one", "two", "three"])
        #expect(events.map(\.name) == [nil, "score", nil])
        #expect(events.map(\.id) == [nil, "7", "7"], "the last event id persists")
        #expect(events.map(\.retry) == [.milliseconds(2500), nil, nil])
        #expect(events.map(\.index) == [0, 1, 3], "the skipped ping keeps its index")
    }

    @Test(arguments: TransportKind.allCases)
    func eventsSplitAcrossChunksAreJoined(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("GET", "/events", respond: .text(Self.sse, contentType: "text/event-stream")
                .with(fault: .paced(chunkSize: 5) { _ in }))
            checkScores(try await collect(client.events(for: Named(), reconnection: .none)))
            let request = try #require(server.lastRequest)
            #expect(request.header("Accept") == "text/event-stream")
        }
    }

    @Test(arguments: TransportKind.allCases)
    func severalEventsInOneChunkAreSeparated(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("GET", "/events", respond: .text(Self.sse, contentType: "text/event-stream"))
            checkScores(try await collect(client.events(for: Named(), reconnection: .none)))
            #expect(server.requestCount("/events") == 1, "one connection: the stream ends with the body")
        }
    }

    /// Each event is sent only once the client has read the one before: the stream hands events
    /// over as they arrive, not when the body ends.
    @Test(arguments: TransportKind.allCases)
    func eachEventArrivesBeforeTheNextIsSent(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            let event = Array("data: {\"id\":0,\"title\":\"x\"}\n\n".utf8)
            let read = Level()
            let body = (0..<5).flatMap { _ in event }
            server.route("GET", "/events", respond: .bytes(body, contentType: "text/event-stream")
                .with(fault: .paced(chunkSize: event.count) { chunk in await read.wait(until: chunk) }))
            var count = 0
            for try await _ in client.events(for: Scores(), reconnection: .none) {
                count += 1
                read.raise(to: count)
            }
            #expect(count == 5)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aDataFieldOverOneMegabyteIsDecoded(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            let title = String(repeating: "abcdefgh", count: 200_000)  // 1.6 MB
            let body = "data: {\"id\":1,\"title\":\"\(title)\"}\n\ndata: {\"id\":2,\"title\":\"after\"}\n\n"
            server.route("GET", "/events", respond: .text(body, contentType: "text/event-stream"))
            let events = try await collect(client.events(for: Scores(), reconnection: .none))
            #expect(events.map(\.value.id) == [1, 2])
            #expect(events.first?.value.title == title)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aMalformedEventFailsNamingTheEvent(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            let body = "data: {\"id\":1,\"title\":\"one\"}\n\nevent: score\nid: 42\ndata: {\"id\":\"two\"}\n\ndata: {\"id\":3,\"title\":\"three\"}\n\n"
            server.route("GET", "/events", respond: .text(body, contentType: "text/event-stream"))
            var iterator = client.events(for: Scores(), reconnection: .none).makeAsyncIterator()
            let first = try await iterator.next()
            #expect(first?.value.id == 1)
            let error = await #expect(throws: CourierError.self) { _ = try await iterator.next() }
            #expect(error?.kind == .decodingFailed)
            #expect(error?.detail.contains("event #1 \"score\" id 42") == true, "\(String(describing: error))")
            #expect(error?.bodySnippet == "{\"id\":\"two\"}")
            #expect(error?.status == .ok)
            #expect(error?.endpoint == "EventStreamTests.Scores")
            #expect(error?.request?.description.contains("/events") == true)
            #expect(try await iterator.next() == nil, "a failed stream ends")
        }
    }

    /// A line that never ends fails at the bound, long before the server has sent it all.
    @Test(arguments: TransportKind.allCases)
    func anEndlessLineIsBounded(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            let endless = Array(repeating: UInt8(ascii: "x"), count: 8 << 20)
            server.route("GET", "/events", respond: .bytes(Array("data: ".utf8) + endless, contentType: "text/event-stream"))
            let stream = client.events(for: Scores(maximumEventSize: 64 * 1024), reconnection: .none)
            let error = await #expect(throws: CourierError.self) { _ = try await collect(stream) }
            #expect(error?.kind == .bodyTooLarge)
            #expect(error?.detail.contains("65536") == true)
        }
    }

    /// Many short `data` lines of one event are bounded together.
    @Test(arguments: TransportKind.allCases)
    func anEndlessEventIsBounded(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            let body = String(repeating: "data: 0123456789\n", count: 100_000)
            server.route("GET", "/events", respond: .text(body, contentType: "text/event-stream"))
            let stream = client.events(for: Scores(maximumEventSize: 64 * 1024), reconnection: .none)
            let error = await #expect(throws: CourierError.self) { _ = try await collect(stream) }
            #expect(error?.kind == .bodyTooLarge)
            #expect(error?.detail.contains("event #0") == true)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func jsonLinesAreDecodedLineByLine(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            let body = "{\"id\":1,\"title\":\"one\"}\r\n\n  \n{\"id\":2,\"title\":\"two\"}\n{\"id\":3,\"title\":\"no newline at the end\"}"
            server.route("GET", "/events", respond: .text(body, contentType: "application/x-ndjson")
                .with(fault: .paced(chunkSize: 3) { _ in }))
            let events = try await collect(client.events(for: Scores(format: .jsonLines), reconnection: .none))
            #expect(events.map(\.value.id) == [1, 2, 3])
            #expect(events.map(\.index) == [0, 1, 2])
            #expect(server.lastRequest?.header("Accept") == "application/x-ndjson")
        }
    }

    @Test(arguments: TransportKind.allCases)
    func anErrorStatusFailsTheCall(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("GET", "/events", respond: .json("{\"message\":\"no scores today\"}", status: 503))
            let error = await #expect(throws: CourierError.self) { _ = try await collect(client.events(for: Scores(), reconnection: .none)) }
            #expect(error?.serverMessage == "no scores today")
            #expect(error?.status?.code == 503)
            #expect(server.requestCount("/events") == 1, "one connection: a retryable status is not retried")
        }
    }

    /// The endpoint's timeout applies between events: a server silent for longer fails the stream.
    /// The first event must come within the timeout too: the test server answers on a thread of its
    /// own, so a suite that holds Swift's shared pool for seconds can't delay it, and 10 s is room
    /// for a loaded machine's scheduler.
    @Test(arguments: TransportKind.allCases)
    func aSilenceLongerThanTheTimeoutFailsTheStream(kind: TransportKind) async throws {
        let rest = Level()
        defer { rest.open() }
        try await withServer(kind, configure: { $0.timeout = .seconds(10) }) { server, client in
            let event = "data: {\"id\":1,\"title\":\"one\"}\n\n"
            server.route("GET", "/events", respond: .text(event + event, contentType: "text/event-stream")
                .with(fault: .paced(chunkSize: event.utf8.count) { chunk in if chunk >= 1 { await rest.wait() } }))
            var iterator = client.events(for: Scores(), reconnection: .none).makeAsyncIterator()
            let first = try await iterator.next()
            #expect(first?.value.id == 1)
            let error = await #expect(throws: CourierError.self) { _ = try await iterator.next() }
            #expect(error?.kind == .timedOut)
        }
    }

    private struct Text: EventStreamEndpoint {
        typealias Event = String
        var path: EndpointPath { "/events" }
    }

    /// 200,000 `data` lines make one 2 MB event: each line is appended in place (a copy per line would take hours).
    @Test(arguments: TransportKind.allCases)
    func anEventOfManyDataLinesIsJoined(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            let body = String(repeating: "data: 0123456789\n", count: 200_000) + "\ndata: next\n\n"
            server.route("GET", "/events", respond: .text(body, contentType: "text/event-stream"))
            let events = try await collect(client.events(for: Text(), reconnection: .none))
            #expect(events.count == 2)
            #expect(events.first?.value.utf8.count == 200_000 * 11 - 1)
            #expect(events.last?.value == "next")
        }
    }
}
