import Courier
import CourierCallbacks
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// Server-sent events that reconnect with `Last-Event-ID`, over both transports.
@Suite struct EventStreamReconnectionTests {
    private struct Scores: EventStreamEndpoint {
        typealias Event = Item
        var path: EndpointPath { "/events" }
    }

    private static let quick = EventStreamReconnection(
        initialDelay: .milliseconds(1), minimumDelay: .milliseconds(1), maximumDelay: .milliseconds(5), maximumFailures: 3
    )

    private static func event(_ id: Int) -> String {
        "id: \(id)\ndata: {\"id\":\(id),\"title\":\"event \(id)\"}\n\n"
    }

    private func lastEventIDs(_ server: MockServer) -> [String?] {
        server.recordedRequests.map { $0.header("Last-Event-ID") }
    }

    @Test(arguments: TransportKind.allCases)
    func anEndedStreamReconnectsWithTheLastEventIDUntil204(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("GET", "/events") { request in
                switch request.header("Last-Event-ID") {
                case nil: .text("retry: 1\n" + Self.event(1) + Self.event(2), contentType: "text/event-stream")
                case "2": .text(Self.event(3), contentType: "text/event-stream")
                default: .status(204)
                }
            }
            var ids: [Int] = []
            for try await event in client.events(for: Scores(), reconnection: Self.quick) { ids.append(event.value.id) }
            #expect(ids == [1, 2, 3])
            #expect(lastEventIDs(server) == [nil, "2", "3"])
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aCutConnectionResumesAfterTheLastEvent(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            let sent = "retry: 1\n" + Self.event(1) + Self.event(2)
            server.route("GET", "/events") { request in
                switch request.header("Last-Event-ID") {
                case nil:
                    .text(sent + "id: 3\ndata: {\"id\":3,", contentType: "text/event-stream")
                        .with(fault: .closeMidBody(afterBytes: sent.utf8.count + 10))
                case "2": .text(Self.event(3), contentType: "text/event-stream")
                default: .status(204)
                }
            }
            var ids: [Int] = []
            for try await event in client.events(for: Scores(), reconnection: Self.quick) { ids.append(event.value.id) }
            #expect(ids == [1, 2, 3], "the cut event 3 is received once, after the reconnection")
            #expect(lastEventIDs(server) == [nil, "2", "3"])
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aStatusThatCannotBeRetriedEndsTheStream(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("GET", "/events") { request in
                request.header("Last-Event-ID") == nil
                    ? .text("retry: 1\n" + Self.event(1), contentType: "text/event-stream")
                    : .json("{\"message\":\"stream is gone\"}", status: 404)
            }
            var ids: [Int] = []
            let error = await #expect(throws: CourierError.self) {
                for try await event in client.events(for: Scores(), reconnection: Self.quick) { ids.append(event.value.id) }
            }
            #expect(ids == [1])
            #expect(error?.status == .notFound)
            #expect(server.recordedRequests.count == 2)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func failedReconnectionsInARowEndTheStream(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("GET", "/events") { request in
                request.header("Last-Event-ID") == nil ? .text(Self.event(1), contentType: "text/event-stream") : .status(503)
            }
            var ids: [Int] = []
            let error = await #expect(throws: CourierError.self) {
                for try await event in client.events(for: Scores(), reconnection: Self.quick) { ids.append(event.value.id) }
            }
            #expect(ids == [1])
            #expect(error?.status == .serviceUnavailable)
            #expect(error?.detail.contains("gave up after 3") == true)
            #expect(server.recordedRequests.count == 4)
        }
    }

    /// A server that asks for `retry: 0` and then ends every connection at once gets a connection
    /// a second or slower, not thousands (2,149 in 2 s before the floor and the backoff).
    @Test(arguments: TransportKind.allCases)
    func aRetryOfZeroAndEmptyConnectionsCantMakeTheSourceFlood(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("GET", "/events") { request in
                request.header("Last-Event-ID") == nil
                    ? .text("retry: 0\n" + Self.event(1), contentType: "text/event-stream")
                    : .text("", contentType: "text/event-stream")
            }
            let reader = Task {
                for try await _ in client.events(for: Scores(), reconnection: EventStreamReconnection(maximumFailures: nil)) {}
            }
            // Once the first reconnection has happened (however slow the machine), 2 s more hold at
            // most two: after the 1 s floor, then after the backoff's 2 s. A loaded machine only waits longer.
            #expect(await eventually(within: .seconds(60)) { server.recordedRequests.count >= 2 })
            try await Task.sleep(for: .seconds(2))
            reader.cancel()
            _ = await reader.result
            let count = server.recordedRequests.count
            #expect(count <= 4, "\(count) connections; a flood is thousands")
        }
    }

    /// A connection that ends without an event is a failed one: the stream ends after the limit.
    @Test(arguments: TransportKind.allCases)
    func connectionsThatEndWithoutAnEventEndTheStream(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("GET", "/events") { request in
                request.header("Last-Event-ID") == nil
                    ? .text(Self.event(1), contentType: "text/event-stream")
                    : .text(": nothing\n\n", contentType: "text/event-stream")
            }
            let reader = Task {
                var ids: [Int] = []
                for try await event in client.events(for: Scores(), reconnection: Self.quick) { ids.append(event.value.id) }
                return ids
            }
            // Without the limit the source would reconnect for good: end it rather than hang.
            let watchdog = Task {
                try await Task.sleep(for: .seconds(60))
                reader.cancel()
            }
            defer { watchdog.cancel() }
            let error = await #expect(throws: CourierError.self) { try await reader.value }
            #expect(error?.kind == .connectionLost)
            #expect(error?.detail.contains("gave up after 3") == true)
            #expect(server.recordedRequests.count == 4)
        }
    }

    /// An id longer than 1 KiB is ignored: the reconnection sends the last id that was short enough.
    @Test(arguments: TransportKind.allCases)
    func aLongEventIDIsNeverSentBack(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            let long = String(repeating: "x", count: 60_000)
            server.route("GET", "/events") { request in
                switch request.header("Last-Event-ID") {
                case nil:
                    .text(Self.event(1) + "id: \(long)\ndata: {\"id\":2,\"title\":\"two\"}\n\n", contentType: "text/event-stream")
                default: .status(204)
                }
            }
            var events: [StreamedEvent<Item>] = []
            for try await event in client.events(for: Scores(), reconnection: Self.quick) { events.append(event) }
            #expect(events.map(\.value.id) == [1, 2])
            #expect(events.map(\.id) == ["1", "1"])
            #expect(lastEventIDs(server) == [nil, "1"])
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aMalformedEventIsNotRetried(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("GET", "/events", respond: .text(Self.event(1) + "data: nope\n\n", contentType: "text/event-stream"))
            let error = await #expect(throws: CourierError.self) {
                for try await _ in client.events(for: Scores(), reconnection: Self.quick) {}
            }
            #expect(error?.kind == .decodingFailed)
            #expect(server.recordedRequests.count == 1)
        }
    }

    /// The wait before reconnecting is the server's `retry`, not the source's own delay, on the
    /// source's clock: a test clock shows the wait and holds the reconnection until it is over.
    @Test(arguments: TransportKind.allCases)
    func theServersRetryIsTheWaitBeforeReconnecting(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("GET", "/events") { request in
                request.header("Last-Event-ID") == nil ? .text("retry: 4000\n" + Self.event(1), contentType: "text/event-stream") : .status(204)
            }
            let clock = ManualClock()
            let reconnection = EventStreamReconnection(initialDelay: .milliseconds(1), maximumDelay: .seconds(60), maximumFailures: 3)
                .waiting(on: clock)
            let received = Level()
            let reader = Task {
                var ids: [Int] = []
                for try await event in client.events(for: Scores(), reconnection: reconnection) {
                    ids.append(event.value.id)
                    received.raise(to: ids.count)
                }
                return ids
            }
            #expect(await received.wait(until: 1, within: .seconds(60)))
            for _ in 0..<12_000 where clock.pendingDeadlines.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
            #expect(clock.sleeps == [.seconds(4)])
            clock.advance(by: .milliseconds(3999))
            try await Task.sleep(for: .milliseconds(200))
            #expect(server.recordedRequests.count == 1, "still waiting")
            clock.advance(by: .milliseconds(1))
            // A wrong, longer wait would hold the reader on the test clock for good: end it instead.
            let watchdog = Task {
                try await Task.sleep(for: .seconds(60))
                reader.cancel()
            }
            defer { watchdog.cancel() }
            #expect(try await reader.value == [1])
            #expect(lastEventIDs(server) == [nil, "1"])
        }
    }

    @Test(arguments: TransportKind.allCases)
    func cancellingTheReaderStopsTheSource(kind: TransportKind) async throws {
        let rest = Level()
        defer { rest.open() }
        try await withServer(kind) { server, client in
            let first = Self.event(1)
            server.route("GET", "/events", respond: .text(first + Self.event(2), contentType: "text/event-stream")
                .with(fault: .paced(chunkSize: first.utf8.count) { chunk in if chunk >= 1 { await rest.wait() } }))
            let received = Level()
            let reader = Task {
                var count = 0
                for try await _ in client.events(for: Scores(), reconnection: Self.quick) {
                    count += 1
                    received.raise(to: count)
                }
            }
            await received.wait(until: 1)
            reader.cancel()
            let error = await #expect(throws: CourierError.self) { try await reader.value }
            #expect(error?.kind == .cancelled)
            #expect(server.recordedRequests.count == 1, "a cancelled source does not reconnect")
        }
    }

    @Test(arguments: TransportKind.allCases)
    func theCallbackFaceHandsEventsOverOnTheQueueThenCompletesOnce(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("GET", "/events") { request in
                request.header("Last-Event-ID") == nil
                    ? .text("retry: 1\n" + Self.event(1) + Self.event(2), contentType: "text/event-stream")
                    : .status(204)
            }
            let queue = DispatchQueue(label: "events")
            let ids = Locked<[Int]>([])
            let completions = Locked<[Result<Void, CourierError>]>([])
            let done = Level()
            client.events(for: Scores(), reconnection: Self.quick, queue: queue) { event in
                dispatchPrecondition(condition: .onQueue(queue))
                ids.withLock { $0.append(event.value.id) }
            } completion: { result in
                dispatchPrecondition(condition: .onQueue(queue))
                completions.withLock { $0.append(result) }
                done.open()
            }
            await done.wait()
            #expect(ids.withLock { $0 } == [1, 2])
            let results = completions.withLock { $0 }
            #expect(results.count == 1)
            #expect((try? results.first?.get()) != nil)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func cancellingTheCallbackFaceCompletesWithCancelledAndNoMoreEvents(kind: TransportKind) async throws {
        let rest = Level()
        defer { rest.open() }
        try await withServer(kind) { server, client in
            let first = Self.event(1)
            server.route("GET", "/events", respond: .text(first + Self.event(2), contentType: "text/event-stream")
                .with(fault: .paced(chunkSize: first.utf8.count) { chunk in if chunk >= 1 { await rest.wait() } }))
            let queue = DispatchQueue(label: "events")
            let ids = Locked<[Int]>([])
            let completions = Locked<[CourierError.Kind?]>([])
            let received = Level()
            let done = Level()
            let handle = client.events(for: Scores(), reconnection: Self.quick, queue: queue) { event in
                ids.withLock { $0.append(event.value.id) }
                received.open()
            } completion: { result in
                if case .failure(let error) = result { completions.withLock { $0.append(error.kind) } } else { completions.withLock { $0.append(nil) } }
                done.open()
            }
            await received.wait()
            handle.cancel()
            rest.open()
            await done.wait()
            // Let anything still queued run: nothing more may arrive.
            await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
            try await Task.sleep(for: .milliseconds(50))
            await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
            #expect(ids.withLock { $0 } == [1])
            #expect(completions.withLock { $0 } == [.cancelled])
        }
    }
}
