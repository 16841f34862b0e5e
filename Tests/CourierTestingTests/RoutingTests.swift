import CourierTestSupport
import CourierTesting
import Testing

@Suite struct RoutingTests {
    @Test func routesByMethodAndPathAndAnswers404Otherwise() async throws {
        try await withServer { server in
            server.route("GET", "/users", respond: .json(#"{"users":[]}"#))
            server.route("post", "/users", respond: .status(201))
            server.route(nil, "/any", respond: .text("any"))

            let list = try #require(try await fetch(server, rawRequest("GET", "/users?page=2")).responses.first)
            #expect(list.status == 200)
            #expect(list.bodyText == #"{"users":[]}"#)
            #expect(list.values("Content-Type") == ["application/json"])

            let created = try #require(try await fetch(server, rawRequest("POST", "/users", body: "x")).responses.first)
            #expect(created.status == 201)
            #expect(created.values("Content-Length") == ["0"])

            let any = try #require(try await fetch(server, rawRequest("DELETE", "/any")).responses.first)
            #expect(any.bodyText == "any")

            let missing = try #require(try await fetch(server, rawRequest("PUT", "/users/7?x=1")).responses.first)
            #expect(missing.status == 404)
            #expect(missing.bodyText == #"{"message":"no route for PUT /users/7"}"#)
            #expect(missing.values("Content-Type") == ["application/json"])
        }
    }

    @Test func trailingStarMatchesAPrefixAndTheLastRouteWins() async throws {
        try await withServer { server in
            server.route(nil, "/files/*", respond: .text("file"))
            server.route("GET", "/files/special", respond: .text("special"))

            let file = try #require(try await fetch(server, rawRequest("GET", "/files/a/b.txt")).responses.first)
            #expect(file.bodyText == "file")
            let special = try #require(try await fetch(server, rawRequest("GET", "/files/special")).responses.first)
            #expect(special.bodyText == "special")
            let parent = try #require(try await fetch(server, rawRequest("GET", "/files")).responses.first)
            #expect(parent.status == 404)
        }
    }

    @Test func scriptServesInOrderThenRepeatsTheLast() async throws {
        try await withServer { server in
            server.route("GET", "/flaky", script: [.retryAfter(seconds: 1), .status(503), .text("ok")])
            let connection = try await RawConnection.connect(port: server.port)
            var statuses: [Int] = []
            for _ in 0..<5 {
                let snapshot = try await connection.exchange(rawRequest("GET", "/flaky"))
                statuses.append(try #require(snapshot.responses.last).status)
            }
            let first = try #require(try await connection.wait(timeout: .zero).responses.first)
            #expect(first.values("Retry-After") == ["1"])
            await connection.close()
            #expect(statuses == [503, 503, 200, 200, 200])
        }
    }

    @Test func handlerSeesTheRequest() async throws {
        try await withServer { server in
            server.route("POST", "/echo") { request in
                .text("\(request.method) \(request.queryValue("q") ?? "-") \(request.bodyText)")
            }
            let echo = try #require(try await fetch(server, rawRequest("POST", "/echo?q=a%20b", body: "hello")).responses.first)
            #expect(echo.bodyText == "POST a b hello")
        }
    }

    @Test func encodableJSONHasSortedKeys() async throws {
        struct User: Encodable { var name = "Ann"; var id = 1; var site = "a/b" }
        try await withServer { server in
            server.route("GET", "/user", respond: .json(User(), status: 202))
            let user = try #require(try await fetch(server, rawRequest("GET", "/user")).responses.first)
            #expect(user.status == 202)
            #expect(user.bodyText == #"{"id":1,"name":"Ann","site":"a/b"}"#)
        }
    }
}
