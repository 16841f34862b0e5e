import CourierTestSupport
import CourierTesting
import Foundation
import Testing

@Suite struct ResponseTests {
    @Test func repeatedSetCookieIsSentAsTwoLines() async throws {
        try await withServer { server in
            let response = MockResponse.text("hi")
                .adding(header: "Set-Cookie", value: "a=1; Path=/")
                .adding(header: "Set-Cookie", value: "b=2; Path=/")
            server.route("GET", "/cookies", respond: response)
            let snapshot = try await fetch(server, rawRequest("GET", "/cookies"))
            let text = String(decoding: snapshot.bytes, as: UTF8.self)
            #expect(text.contains("\r\nSet-Cookie: a=1; Path=/\r\n"))
            #expect(text.contains("\r\nSet-Cookie: b=2; Path=/\r\n"))
            let parsed = try #require(snapshot.responses.first)
            #expect(parsed.values("set-cookie") == ["a=1; Path=/", "b=2; Path=/"])
            #expect(parsed.values("Content-Length") == ["2"])
        }
    }

    @Test func keepAliveServesSequentialRequestsOnOneConnection() async throws {
        try await withServer { server in
            server.route("GET", "/n") { request in .text(String(request.connectionID)) }
            let connection = try await RawConnection.connect(port: server.port)
            _ = try await connection.exchange(rawRequest("GET", "/n"))
            let second = try await connection.exchange(rawRequest("GET", "/n"))
            #expect(second.ending == nil)
            #expect(second.responses.map(\.bodyText) == ["1", "1"])
            #expect(server.connectionsOpened == 1)
            await connection.close()
        }
    }

    @Test func connectionCloseIsHonoured() async throws {
        try await withServer { server in
            server.route("GET", "/bye", respond: .text("bye"))
            let connection = try await RawConnection.connect(port: server.port)
            try await connection.send(rawRequest("GET", "/bye", headers: ["Connection: close"]))
            let snapshot = try await connection.wait(timeout: .seconds(60))
            #expect(snapshot.ending == .eof)
            let response = try #require(snapshot.responses.first)
            #expect(response.bodyText == "bye")
            #expect(response.values("Connection") == ["close"])
        }
    }

    @Test func headRequestGetsLengthButNoBody() async throws {
        try await withServer { server in
            server.route(nil, "/doc", respond: .text("12345"))
            let connection = try await RawConnection.connect(port: server.port)
            try await connection.send(rawRequest("HEAD", "/doc"))
            _ = try await connection.wait(timeout: .milliseconds(200))
            try await connection.send(rawRequest("GET", "/doc"))
            let follow = try await connection.wait { $0.bytes.suffix(5) == Array("12345".utf8)[...] }
            let text = String(decoding: follow.bytes, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(text.components(separatedBy: "Content-Length: 5").count == 3)
            #expect(text.hasSuffix("\r\n\r\n12345"))
            await connection.close()
        }
    }

    @Test func oversizedBodyGets413() async throws {
        let server = try await MockServer.start(maxRequestBodySize: 8)
        server.route("POST", "/upload", respond: .status(200))
        let small = try #require(try await fetch(server, rawRequest("POST", "/upload", body: "12345678")).responses.first)
        #expect(small.status == 200)
        let big = try await fetch(server, rawRequest("POST", "/upload", body: "123456789"))
        #expect(big.responses.first?.status == 413)
        #expect(server.recordedRequests.map(\.body.count) == [8, 0])
        try await server.shutdown()
    }
}
