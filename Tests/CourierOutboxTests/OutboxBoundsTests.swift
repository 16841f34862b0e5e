import Courier
import CourierOutbox
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@testable import CourierOutbox

/// Nothing waits for ever without the app knowing, the disk limits hold, and each wait ends for its
/// own reason.
@Suite(.timeLimit(.minutes(3))) struct OutboxBoundsTests {
    @Test(arguments: Transport.allCases)
    func transientFailuresPastTheAttemptBoundParkAndRetryGivesAFreshBudget(_ transport: Transport) async throws {
        let backoff = Outbox.Backoff(maximumTransientFailures: 3)
        try await withOutbox(transport, backoff: backoff) { server, outbox, clock, _ in
            let failing = Locked(true)
            server.route("POST", "/conversations/*") { request in
                failing.current ? .status(503) : .json(request.bodyText, status: 201)
            }
            let changes = outbox.changes()
            let item = try await outbox.enqueue(PostMessage(conversation: 1, text: "one"), group: "1")
            try await outbox.enqueue(PostMessage(conversation: 1, text: "after"), group: "1")
            for attempt in 1 ... 2 {
                await clock.waitForSleepers(count: 1)
                #expect(server.recordedRequests.count == attempt)
                clock.advance(by: .seconds(3600))
            }
            #expect(await eventually { server.recordedRequests.count == 3 })
            #expect(try await eventually { try await outbox.items().first?.state == .parked })
            let items = try await outbox.items()
            #expect(items.map(\.state) == [.parked, .waiting] && items.first?.id == item.id)
            #expect(items.first?.lastFailure?.reason == .gaveUp && items.first?.lastFailure?.status == 503)
            #expect(items.first?.lastFailure?.detail.contains("3 transient failures") == true)
            let seen = await collect(changes, count: 8)
            #expect(seen.map(\.name).suffix(2) == ["sending", "parked"])

            // A fresh budget: a fourth failure backs off instead of parking at once.
            try await outbox.retry(item.id)
            await clock.waitForSleepers(count: 1)
            #expect(server.recordedRequests.count == 4)
            #expect(try await outbox.items().first?.state == .waiting)
            failing.withLock { $0 = false }
            await outbox.flush()
            #expect(try await eventually { try await outbox.items().isEmpty })
            #expect(texts(server) == Array(repeating: "one", count: 5) + ["after"])
        }
    }

    @Test(arguments: Transport.allCases)
    func aFailedConnectionCountsAgainstTheAgeBoundOnly(_ transport: Transport) async throws {
        try await withOutbox(transport, backoff: Outbox.Backoff(maximumTransientFailures: 2)) { server, outbox, clock, _ in
            acceptMessages(on: server)
            try await server.goDown()
            try await outbox.enqueue(PostMessage(conversation: 1, text: "offline"))
            for _ in 1 ... 4 {
                await clock.waitForSleepers(count: 1)
                clock.advance(by: .seconds(3600))
            }
            await clock.waitForSleepers(count: 1)
            let items = try await outbox.items()
            #expect(items.map(\.state) == [.waiting] && items.first?.sends == 5 && items.first?.lastFailure?.reason == .transient)
        }
        try await withOutbox(transport, backoff: Outbox.Backoff(maximumAge: .zero)) { server, outbox, _, _ in
            try await server.goDown()
            try await outbox.enqueue(PostMessage(conversation: 1, text: "offline"))
            #expect(try await eventually { try await outbox.items().first?.state == .parked })
            #expect(try await outbox.items().first?.lastFailure?.reason == .gaveUp)
        }
    }

    @Test(arguments: Transport.allCases)
    func theNetworksReturnEndsAConnectionWaitButNotAServersRetryAfter(_ transport: Transport) async throws {
        try await withOutbox(transport) { server, outbox, clock, _ in
            server.route("POST", "/conversations/1/messages", script: [.retryAfter(seconds: 30, status: 429), .json(#"{"text":"one"}"#, status: 201)])
            try await outbox.enqueue(PostMessage(conversation: 1, text: "one"))
            await clock.waitForSleepers(count: 1)
            await outbox.connectivityReturned()
            try await Task.sleep(for: .milliseconds(200))
            #expect(server.recordedRequests.count == 1)
            #expect(try await outbox.items().count == 1)
        }
        try await withOutbox(transport) { server, outbox, clock, _ in
            acceptMessages(on: server)
            try await server.goDown()
            try await outbox.enqueue(PostMessage(conversation: 1, text: "offline"))
            await clock.waitForSleepers(count: 1)
            try await server.comeUp()
            await outbox.connectivityReturned()
            #expect(try await eventually { try await outbox.items().isEmpty })
            #expect(texts(server) == ["offline"])
        }
    }

    @Test(arguments: Transport.allCases)
    func aStreamPastTheLimitStopsAtItAndLeavesNothing(_ transport: Transport) async throws {
        try await withOutbox(transport, limits: Outbox.Limits(maximumBytes: 50_000)) { server, outbox, _, folder in
            acceptMessages(on: server)
            let pulled = Locked(0)
            let chunks = AsyncStream<ArraySlice<UInt8>> {
                let count = pulled.withLock { pulled in
                    pulled += 1
                    return pulled
                }
                return count <= 1_000 ? ArraySlice(repeating: 1, count: 10_000) : nil
            }
            await #expect(throws: OutboxError.self) { try await outbox.enqueue(StreamedUpload(chunks: chunks)) }
            #expect(pulled.current <= 7)
            let bodies = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("bodies").path)
            let items = try await outbox.items()
            #expect(bodies.isEmpty && items.isEmpty)
        }
    }

    /// Two streamed bodies enqueued at once can't pass the byte limit together: the second is
    /// copied once the first is kept, within the room it left.
    @Test func streamsEnqueuedAtOnceStayWithinTheLimitTogether() async throws {
        try await withOutbox(.asyncHTTPClient, limits: Outbox.Limits(maximumBytes: 100_000)) { server, outbox, _, folder in
            try await server.goDown()
            let open = Locked(false)
            // 60 kB, then a wait until the test opens the gate.
            @Sendable func body() -> AsyncStream<ArraySlice<UInt8>> {
                let pulled = Locked(0)
                return AsyncStream {
                    let count = pulled.withLock { pulled in
                        pulled += 1
                        return pulled
                    }
                    if count <= 6 { return ArraySlice(repeating: 1, count: 10_000) }
                    _ = await eventually(within: .seconds(30)) { open.current }
                    return nil
                }
            }
            @Sendable func enqueue(_ group: String) async -> Result<OutboxItem, OutboxError> {
                do { return .success(try await outbox.enqueue(StreamedUpload(chunks: body()), group: group)) } catch { return .failure(error) }
            }
            async let first = enqueue("a")
            async let second = enqueue("b")
            let bodies = folder.appendingPathComponent("bodies")
            func onDisk() -> Int {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: bodies.path)) ?? []
                return names.reduce(0) { total, name in
                    let size = try? FileManager.default.attributesOfItem(atPath: bodies.appendingPathComponent(name).path)[.size] as? Int
                    return total + (size ?? 0)
                }
            }
            // Both copies running at once would hold 120 kB here.
            _ = await eventually(within: .seconds(2)) { onDisk() > 100_000 }
            #expect(onDisk() <= 100_000)
            open.withLock { $0 = true }
            let results = await [first, second]
            #expect(results.filter { (try? $0.get()) != nil }.count == 1)
            #expect(results.contains { if case .failure(.full) = $0 { true } else { false } })
        }
    }

    @Test(arguments: Transport.allCases)
    func aRefusalKeepsABoundedExcerptAndCountsIt(_ transport: Transport) async throws {
        try await withOutbox(transport) { server, outbox, _, _ in
            let message = String(repeating: "é", count: 100_000)
            server.route("POST", "/conversations/*") { _ in .json(#"{"message":"\#(message)"}"#, status: 422) }
            let item = try await outbox.enqueue(PostMessage(conversation: 1, text: "one"))
            await outbox.flush()
            let parked = try #require(try await outbox.items().first)
            let kept = try #require(parked.lastFailure?.serverMessage)
            #expect(kept.utf8.count <= 1024 && kept.hasPrefix("éé"))
            #expect(parked.size > item.size && parked.size < item.size + 4096)
        }
    }

    @Test func aSubscriberThatFallsBehindKeepsTheNewestChanges() async throws {
        try await withOutbox(.asyncHTTPClient) { server, outbox, _, _ in
            acceptMessages(on: server)
            let changes = outbox.changes(bufferingNewest: 2)
            for text in ["a", "b", "c"] { try await outbox.enqueue(PostMessage(conversation: 1, text: text)) }
            await outbox.flush()
            await outbox.stop()
            var seen: [String] = []
            for await change in changes { seen.append(change.name) }
            #expect(seen == ["sending", "sent"])
        }
    }

    @Test func aUserMismatchAndAStopAreNotConfused() {
        #expect(Disposition(of: CourierError(.anotherUserSignedIn, detail: ""), stopping: false) == .awaitUser)
        #expect(Disposition(of: CourierError(.cancelled, detail: ""), stopping: false) == .transient)
        #expect(Disposition(of: CourierError(.cancelled, detail: ""), stopping: true) == .stop)
        #expect(Disposition(of: CourierError(.redirect, detail: "", status: .found), stopping: false) == .refused)
    }

    /// Later is longer than a call's retries: a key still in flight, a server not ready, any 5xx
    /// and a transport's own failure are sent again; a refusal of the request is not.
    @Test func whatIsSentAgainLaterIsMoreThanWhatIsRetriedWithinACall() {
        for code in [408, 409, 425, 429, 500, 501, 507] {
            let error = CourierError(.unacceptableStatus, detail: "", status: .init(code: code))
            #expect(Disposition(of: error, stopping: false) == .transient, "\(code)")
        }
        for code in [400, 404, 410, 422] {
            let error = CourierError(.unacceptableStatus, detail: "", status: .init(code: code))
            #expect(Disposition(of: error, stopping: false) == .refused, "\(code)")
        }
        #expect(Disposition(of: CourierError(.transport, detail: ""), stopping: false) == .transient)
        #expect(Disposition(of: CourierError(.decodingFailed, detail: ""), stopping: false) == .refused)
        #expect(!RetryPolicy.default.retryableStatuses.contains(409))
    }
}

/// A body streamed from chunks the test counts.
struct StreamedUpload<Chunks: AsyncSequence & Sendable>: Endpoint where Chunks.Element == ArraySlice<UInt8> {
    typealias Response = Data
    let chunks: Chunks
    var method: HTTPRequest.Method { .post }
    var path: EndpointPath { "/conversations/1/messages" }
    var body: RequestBody? { .stream(chunks) }
}
