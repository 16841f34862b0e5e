import CourierTestSupport
import CourierTesting
import HTTPTypes
import Testing

@Suite struct RecordingTests {
    @Test func recordsMethodTargetQueryHeadersAndBody() async throws {
        try await withServer { server in
            server.route("POST", "/search", respond: .status(204))
            let request = rawRequest(
                "POST",
                "/search?q=caf%C3%A9%20au%20lait&tag=a&tag=b&flag&plus=1+2",
                headers: ["Accept: text/plain", "X-Trace: one", "x-trace: two"],
                body: #"{"k":"v"}"#
            )
            let response = try #require(try await fetch(server, request).responses.first)
            #expect(response.status == 204)

            let recorded = try #require(server.recordedRequests.first)
            #expect(server.recordedRequests.count == 1)
            #expect(recorded.method == "POST")
            #expect(recorded.target == "/search?q=caf%C3%A9%20au%20lait&tag=a&tag=b&flag&plus=1+2")
            #expect(recorded.path == "/search")
            #expect(recorded.queryItems == [
                RecordedQueryItem(name: "q", value: "café au lait"),
                RecordedQueryItem(name: "tag", value: "a"),
                RecordedQueryItem(name: "tag", value: "b"),
                RecordedQueryItem(name: "flag", value: ""),
                RecordedQueryItem(name: "plus", value: "1+2"),
            ])
            #expect(recorded.headers[values: try #require(HTTPField.Name("X-Trace"))] == ["one", "two"])
            #expect(recorded.header("x-trace") == "one")
            #expect(recorded.header("accept") == "text/plain")
            #expect(recorded.header("missing") == nil)
            #expect(recorded.bodyText == #"{"k":"v"}"#)
            #expect(recorded.connectionID == 1)
        }
    }

    @Test func aSinkKeepsTheBodysLengthAndSHA256Only() async throws {
        try await withServer { server in
            server.route("POST", "/kept", respond: .status(204))
            server.sink("POST", "/sink")
            let connection = try await RawConnection.connect(port: server.port)
            _ = try await connection.exchange(rawRequest("POST", "/sink", body: "abc"))
            _ = try await connection.exchange(rawRequest("POST", "/kept", body: "abc"))
            await connection.close()
            let (sunk, kept) = (server.recordedRequests[0], server.recordedRequests[1])
            #expect(sunk.body.isEmpty)
            #expect(sunk.bodyLength == 3)
            // FIPS 180-2's example for "abc".
            #expect(sunk.bodySHA256 == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
            #expect(kept.bodyText == "abc")
            #expect(kept.bodySHA256 == sunk.bodySHA256)
        }
    }

    @Test func countsByExactPathAndResets() async throws {
        try await withServer { server in
            server.route(nil, "/*", respond: .status(200))
            let connection = try await RawConnection.connect(port: server.port)
            for target in ["/a", "/a?x=1", "/a/b", "/b"] {
                _ = try await connection.exchange(rawRequest("GET", target))
            }
            await connection.close()
            #expect(server.requestCount("/a") == 2)
            #expect(server.requestCount("/a/b") == 1)
            #expect(server.requestCount("/c") == 0)
            #expect(server.lastRequest?.path == "/b")
            #expect(Set(server.recordedRequests.map(\.connectionID)) == [1])
            server.resetRecords()
            #expect(server.recordedRequests.isEmpty)
            #expect(server.requestCount("/a") == 0)
        }
    }

    @Test(arguments: [
        ("/p?a=%41&b=%zz", "/p", [RecordedQueryItem(name: "a", value: "A"), RecordedQueryItem(name: "b", value: "%zz")]),
        ("/p", "/p", []),
        ("/p?", "/p", []),
        ("/p?=v&&k=", "/p", [RecordedQueryItem(name: "", value: "v"), RecordedQueryItem(name: "k", value: "")]),
        ("http://example.com/x/y?z=1#frag", "/x/y", [RecordedQueryItem(name: "z", value: "1")]),
        ("/a%2Fb?x=%E2%9C%93", "/a%2Fb", [RecordedQueryItem(name: "x", value: "✓")]),
    ])
    func splitsTargets(target: String, path: String, query: [RecordedQueryItem]) {
        let request = RecordedRequest(method: "GET", target: target)
        #expect(request.path == path)
        #expect(request.queryItems == query)
    }
}
