import Courier
import CourierTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// Every body read on the way is bounded, and the one deadline fails the way a transport's does.
@Suite struct BodyLimitTests {
    /// A stream of `count` chunks of 1 KiB, of unknown length, that counts how many were read.
    private func stream(chunks count: Int, read: Locked<Int>) -> HTTPBody {
        let chunks = AsyncStream<ArraySlice<UInt8>> { continuation in
            for _ in 0..<count { continuation.yield(ArraySlice(repeating: 7, count: 1024)) }
            continuation.finish()
        }
        return HTTPBody(chunks.map { chunk in read.withLock { $0 += 1 }; return chunk }, length: .unknown, iterationBehavior: .single)
    }

    @Test func aRequestBodyOverTheLimitStopsBeingReadAtTheLimit() async throws {
        let read = Locked(0)
        let error = await #expect(throws: CourierError.self) {
            _ = try await gatherRequestBody(stream(chunks: 100, read: read), limit: 10 * 1024)
        }
        #expect(error?.kind == .invalidRequest)
        #expect(read.current == 11)
    }

    @Test func aResponseBodyOverTheLimitStopsBeingReadAtTheLimit() async throws {
        let read = Locked(0)
        let error = await #expect(throws: CourierError.self) {
            _ = try await collectBody(stream(chunks: 100, read: read), limit: 10 * 1024)
        }
        #expect(error?.kind == .bodyTooLarge)
        #expect(read.current == 11)
    }

    @Test func aResponseAnnouncedOverTheLimitIsNotReadAtAll() async throws {
        let body = HTTPBody(Data(count: 4096))
        let error = await #expect(throws: CourierError.self) { _ = try await collectBody(body, limit: 1024) }
        #expect(error?.kind == .bodyTooLarge)
        #expect(error?.detail.contains("4096 bytes") == true)
    }

    @Test func theDeadlineEndsWorkThatOutlivesIt() async throws {
        let deadline = Deadline(timeout: .milliseconds(100))
        let error = await #expect(throws: CourierError.self) {
            try await deadline.bound { try await Task.sleep(for: .seconds(600)) }
        }
        #expect(error?.kind == .timedOut)
        #expect(error?.detail == "No complete response within 0.1 seconds")
    }

    @Test func workWithinTheDeadlineKeepsItsValue() async throws {
        let value = try await Deadline(timeout: .seconds(300)).bound { 42 }
        #expect(value == 42)
    }

    @Test func anErrorBodyOverTheLimitKeepsItsFirstBytesAndStopsReading() async throws {
        let read = Locked(0)
        let prefix = try await collectPrefix(stream(chunks: 100, read: read), limit: 10 * 1024 + 10)
        #expect(prefix.count == 10 * 1024 + 10)
        #expect(read.current == 11)
    }

    /// Through a transport the client bounds itself (not a `CourierTransport`).
    @Test func anErrorStatusOverTheLimitIsTheServersErrorThroughAnyTransport() async throws {
        let page = String(repeating: "x", count: 64 * 1024)
        let transport = StubTransport.answering(.badGateway, headers: [.contentType: "text/html"], body: page)
        let client = Client(baseURL: try #require(URL(string: "https://api.example.com")), transport: transport) { $0.maximumBodySize = 4096 }
        struct Page: Endpoint {
            typealias Response = JSON
            var path: EndpointPath { "/page" }
        }
        let error = await #expect(throws: CourierError.self) { try await client.send(Page()) }
        #expect(error?.status == .badGateway)
        #expect(error?.bodySnippet?.count == CourierError.snippetLimit + 1)
    }

    /// A body an answer holds whole (URLSession's, gathered) reaches the edge as it is, within
    /// the same limit as a body read there; replacing the body forgets the bytes.
    @Test func aBodyHeldWholeIsTakenAsItIsWithinTheSameLimit() async throws {
        let bytes = Data(repeating: 7, count: 100)
        let ok = Answer(response: HTTPResponse(status: .ok), whole: bytes)
        #expect(try await collectResponseBody(of: ok, limit: 100) == bytes)
        let error = await #expect(throws: CourierError.self) { try await collectResponseBody(of: ok, limit: 99) }
        #expect(error?.kind == .bodyTooLarge)
        let failed = Answer(response: HTTPResponse(status: .badGateway), whole: bytes)
        #expect(try await collectResponseBody(of: failed, limit: 10) == bytes.prefix(10))
        var replaced = ok
        replaced.body = HTTPBody("other")
        #expect(replaced.whole == nil)
        #expect(try await collectResponseBody(of: replaced, limit: 100) == Data("other".utf8))
    }
}
