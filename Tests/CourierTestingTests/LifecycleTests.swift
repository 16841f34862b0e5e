import CourierTestSupport
import CourierTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOPosix
import Testing

@Suite struct LifecycleTests {
    private let clock = ContinuousClock()

    @Test func startsOnAFreePortWithABaseURL() async throws {
        try await withServer { server in
            #expect(server.port > 0)
            #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)")
            #expect(server.url("/a?b=1").absoluteString == "http://127.0.0.1:\(server.port)/a?b=1")
        }
    }

    @Test func urlSessionGetsJSON() async throws {
        try await withServer { server in
            server.route("GET", "/hello", respond: .json(#"{"hello":"world"}"#))
            let session = URLSession(configuration: .ephemeral)
            defer { session.invalidateAndCancel() }
            let (data, response) = try await session.data(from: server.url("/hello?x=1"))
            let http = try #require(response as? HTTPURLResponse)
            #expect(http.statusCode == 200)
            #expect(String(decoding: data, as: UTF8.self) == #"{"hello":"world"}"#)
            #expect(server.lastRequest?.queryValue("x") == "1")
        }
    }

    @Test func goDownRefusesConnectionsAndComeUpServesOnTheSamePort() async throws {
        try await withServer { server in
            server.route("GET", "/ping", respond: .text("pong"))
            let port = server.port
            let open = try await RawConnection.connect(port: port)
            _ = try await open.exchange(rawRequest("GET", "/ping"))

            try await server.goDown()
            let closed = try await open.wait(timeout: .seconds(60))
            #expect(closed.ending != nil)
            let error = await #expect(throws: IOError.self) {
                _ = try await RawConnection.connect(port: port)
            }
            #expect(error?.errnoCode == ECONNREFUSED)
            #expect(await server.waitUntilConnectionsClosed(timeout: .seconds(60)))
            try await server.goDown()

            try await server.comeUp()
            try await server.comeUp()
            #expect(server.port == port)
            let again = try #require(try await fetch(server, rawRequest("GET", "/ping")).responses.first)
            #expect(again.bodyText == "pong")
        }
    }

    @Test func countersTrackOpenAndClosedConnections() async throws {
        try await withServer { server in
            server.route(nil, "/*", respond: .status(204))
            let first = try await RawConnection.connect(port: server.port)
            let second = try await RawConnection.connect(port: server.port)
            _ = try await first.exchange(rawRequest("GET", "/a"))
            _ = try await second.exchange(rawRequest("GET", "/b"))
            #expect(server.connectionsOpened == 2)
            #expect(server.connectionsOpen == 2)
            #expect(server.streamsOpen == 2)
            #expect(Set(server.recordedRequests.map(\.connectionID)) == [1, 2])
            await first.close()
            await second.close()
            #expect(await server.waitUntilConnectionsClosed(timeout: .seconds(60)))
            #expect(server.connectionsOpen == 0)
            #expect(server.streamsOpen == 0)
            #expect(server.connectionsOpened == 2)
        }
    }

    @Test func shutdownIsPromptWithHangingConnectionsAndPendingDelays() async throws {
        let server = try await MockServer.start()
        server.route("GET", "/hang", respond: MockResponse.status(200).with(fault: .neverAnswer))
        server.route("GET", "/slow", respond: MockResponse.status(200).with(fault: .delayHeaders(.seconds(300))))
        server.route("GET", "/stuck") { _ in
            try? await Task.sleep(for: .seconds(300))
            return .status(200)
        }
        var connections: [RawConnection] = []
        for path in ["/hang", "/slow", "/stuck"] {
            let connection = try await RawConnection.connect(port: server.port)
            try await connection.send(rawRequest("GET", path))
            connections.append(connection)
        }
        while server.recordedRequests.count < 3 {
            try await Task.sleep(for: .milliseconds(5))
        }
        let start = clock.now
        try await server.shutdown()
        // The pending delays and hanging connection would hold it for 300 s: half of that is
        // beyond any machine's slowness.
        #expect(clock.now - start < .seconds(150))
        #expect(server.connectionsOpen == 0)
        for connection in connections {
            let snapshot = try await connection.wait(timeout: .seconds(60))
            #expect(snapshot.ending == .eof)
        }
        try await server.shutdown()
        await #expect(throws: MockServerError.self) { try await server.comeUp() }
        await #expect(throws: MockServerError.self) { try await server.goDown() }
    }
}
