import CourierTestSupport
import CourierTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

@Suite struct FaultTests {
    private let clock = ContinuousClock()

    @Test func delayHeadersDelaysTheWholeResponse() async throws {
        try await withServer { server in
            server.route("GET", "/slow", respond: .text("late").with(fault: .delayHeaders(.milliseconds(300))))
            let connection = try await RawConnection.connect(port: server.port)
            let start = clock.now
            try await connection.send(rawRequest("GET", "/slow"))
            // The first byte, whenever it comes (a slow machine only makes it later)...
            let first = try await connection.wait(timeout: .seconds(60)) { !$0.bytes.isEmpty }
            #expect(!first.timedOut)
            // ...came no sooner than the delay, and the whole response follows.
            #expect(clock.now - start >= .milliseconds(290))
            let late = try await connection.wait(timeout: .seconds(60)) { !$0.responses.isEmpty }
            #expect(late.responses.first?.bodyText == "late")
            await connection.close()
        }
    }

    @Test func delayBodySendsTheHeadFirst() async throws {
        try await withServer { server in
            // The body waits an hour: the head arrives alone however slow or busy the machine is
            // (the test never waits for that body; closing the connection ends it).
            server.route("GET", "/slow", respond: .text("body").with(fault: .delayBody(.seconds(3600))))
            let connection = try await RawConnection.connect(port: server.port)
            try await connection.send(rawRequest("GET", "/slow"))
            let head = try await connection.wait(timeout: .seconds(60)) { $0.bytes.count >= 4 && String(decoding: $0.bytes, as: UTF8.self).contains("\r\n\r\n") }
            #expect(!head.timedOut)
            #expect(String(decoding: head.bytes, as: UTF8.self).hasPrefix("HTTP/1.1 200 OK"))
            #expect(String(decoding: head.bytes, as: UTF8.self).hasSuffix("\r\n\r\n"), "the head, and nothing of the body")
            #expect(head.responses.isEmpty)
            await connection.close()
        }
    }

    @Test func delayBodySendsTheBodyNoSoonerThanTheDelay() async throws {
        try await withServer { server in
            server.route("GET", "/slow", respond: .text("body").with(fault: .delayBody(.milliseconds(300))))
            let connection = try await RawConnection.connect(port: server.port)
            let start = clock.now
            try await connection.send(rawRequest("GET", "/slow"))
            let full = try await connection.wait(timeout: .seconds(60)) { !$0.responses.isEmpty }
            #expect(clock.now - start >= .milliseconds(290))
            #expect(full.responses.first?.bodyText == "body")
            await connection.close()
        }
    }

    @Test func dripSendsTheBodyInTimedChunks() async throws {
        try await withServer { server in
            let fault = Fault.drip(chunkSize: 2, interval: .milliseconds(50))
            server.route("GET", "/drip", respond: .text("abcdef").with(fault: fault))
            let start = clock.now
            let snapshot = try await fetch(server, rawRequest("GET", "/drip"))
            #expect(clock.now - start >= .milliseconds(140))
            #expect(snapshot.responses.first?.bodyText == "abcdef")
        }
    }

    @Test func closeMidBodyTruncatesTheBody() async throws {
        try await withServer { server in
            server.route("GET", "/cut", respond: .text("0123456789").with(fault: .closeMidBody(afterBytes: 4)))
            let snapshot = try await fetch(server, rawRequest("GET", "/cut"))
            #expect(snapshot.ending == .eof)
            #expect(snapshot.responses.isEmpty)
            let text = String(decoding: snapshot.bytes, as: UTF8.self)
            #expect(text.contains("Content-Length: 10\r\n"))
            #expect(text.hasSuffix("\r\n\r\n0123"))
        }
    }

    @Test func resetGivesAConnectionResetError() async throws {
        try await withServer { server in
            server.route("GET", "/rst", respond: MockResponse.text("never").with(fault: .reset))
            let snapshot = try await fetch(server, rawRequest("GET", "/rst"))
            #expect(snapshot.bytes.isEmpty)
            guard case .error(let code, _) = snapshot.ending else {
                Issue.record("expected a connection error, got \(String(describing: snapshot.ending))")
                return
            }
            #expect(code == ECONNRESET)
        }
    }

    @Test func closeWithoutResponseEndsCleanlyWithNoBytes() async throws {
        try await withServer { server in
            server.route("GET", "/gone", respond: MockResponse.status(200).with(fault: .closeWithoutResponse))
            let snapshot = try await fetch(server, rawRequest("GET", "/gone"))
            #expect(snapshot.ending == .eof)
            #expect(snapshot.bytes.isEmpty)
        }
    }

    @Test func neverAnswerTimesOutAtTheClient() async throws {
        try await withServer { server in
            server.route("GET", "/hang", respond: MockResponse.status(200).with(fault: .neverAnswer))
            let snapshot = try await fetch(server, rawRequest("GET", "/hang"), timeout: .milliseconds(200))
            #expect(snapshot.timedOut)
            #expect(snapshot.ending == nil)
            #expect(snapshot.bytes.isEmpty)
            #expect(server.requestCount("/hang") == 1)
        }
    }

    @Test func urlSessionSeesATruncatedBodyAsAnError() async throws {
        try await withServer { server in
            server.route("GET", "/cut", respond: .text("0123456789").with(fault: .closeMidBody(afterBytes: 4)))
            let session = URLSession(configuration: .ephemeral)
            defer { session.invalidateAndCancel() }
            await #expect(throws: (any Error).self) {
                _ = try await session.data(from: server.url("/cut"))
            }
        }
    }

    @Test func urlSessionTimesOutOnNeverAnswer() async throws {
        try await withServer { server in
            server.route("GET", "/hang", respond: MockResponse.status(200).with(fault: .neverAnswer))
            var request = URLRequest(url: server.url("/hang"))
            // Whole seconds: FoundationNetworking on Linux rounds 0.3 down to 0 and fails at once.
            request.timeoutInterval = 1
            let session = URLSession(configuration: .ephemeral)
            defer { session.invalidateAndCancel() }
            let start = clock.now
            let error = await #expect(throws: URLError.self) {
                _ = try await session.data(for: request)
            }
            #expect(error?.code == .timedOut)
            #expect(clock.now - start >= .milliseconds(900))
        }
    }
}
