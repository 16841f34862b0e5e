import AsyncHTTPClient
import Courier
import CourierTestSupport
import CourierAsyncHTTPClient
import CourierTesting
import Foundation
import NIOCore
import Testing

/// One suite, run against every transport over a real loopback server: plain HTTP/1.1, and HTTPS
/// over HTTP/1.1 and HTTP/2 where the transport trusts the server's test CA (see ``Wire``).
@Suite struct TransportConformanceTests {
    @Test(arguments: Wire.allCases)
    func getPlacesParametersInTheQueryAndDecodes(wire: Wire) async throws {
        try await withServer(wire) { server, client in
            server.route("GET", "/items", respond: .json(#"{"id":1,"title":"café ☕"}"#))
            let item = try await client.send(Call<Item>(parameters: ["q": "a b&c", "n": 2]))
            #expect(item == Item(id: 1, title: "café ☕"))
            let request = try #require(server.lastRequest)
            #expect(request.method == "GET")
            #expect(request.target == "/items?q=a%20b%26c&n=2")
            #expect(request.body.isEmpty)
            #expect(request.header("Accept") == "application/json")
        }
    }

    @Test(arguments: Wire.allCases, [HTTPRequest.Method.post, .put, .patch, .delete])
    func methodsAndBodiesReachTheServer(wire: Wire, method: HTTPRequest.Method) async throws {
        try await withServer(wire) { server, client in
            server.route(nil, "/items", respond: .status(204))
            _ = try await client.send(Call<Empty>(method: method, parameters: ["title": "t"]))
            let request = try #require(server.lastRequest)
            #expect(request.method == method.rawValue)
            if method == .delete {
                #expect(request.target == "/items?title=t")
            } else {
                #expect(request.header("Content-Type") == "application/json")
                #expect(try JSON(data: Data(request.body))["title"]?.string == "t")
            }
        }
    }

    @Test(arguments: Wire.allCases)
    func requestHeadersAreSentAndRepeatedResponseFieldsAreKept(wire: Wire) async throws {
        try await withServer(wire) { server, client in
            server.route("GET", "/cookies", respond: .json("{}").adding(header: "Set-Cookie", value: "a=1; Path=/").adding(header: "Set-Cookie", value: "b=2; Path=/"))
            let response = try await client.response(for: Call<JSON>(path: "/cookies", headers: [.init("X-Trace")!: "abc"]))
            #expect(server.lastRequest?.header("X-Trace") == "abc")
            let cookies = response.head.headerFields[values: .setCookie]
            switch wire.kind {
            case .asyncHTTPClient:
                #expect(cookies == ["a=1; Path=/", "b=2; Path=/"])
            case .urlSession:
                // HTTPURLResponse keeps one value per name; both cookies must still be there.
                let joined = cookies.joined(separator: ", ")
                #expect(joined.contains("a=1") && joined.contains("b=2"))
            }
        }
    }

    /// A value with line breaks can't add a header line; non-ASCII text arrives as its UTF-8 bytes.
    @Test(arguments: Wire.allCases)
    func aHeaderValueCanNotInjectALineAndUnicodeArrivesIntact(wire: Wire) async throws {
        try await withServer(wire) { server, client in
            server.route("GET", "/items", respond: .json("{}"))
            let headers: HTTPFields = [.init("X-Note")!: "a\r\nX-Injected: 1", .init("X-City")!: "Zürich"]
            _ = try await client.send(Call<JSON>(headers: headers))
            let request = try #require(server.lastRequest)
            #expect(request.header("X-Injected") == nil)
            #expect(request.header("X-Note")?.contains("\n") == false)
            #expect(request.header("X-City") == "Zürich")
        }
    }

    /// A proxy's 3 MB error page is still the server's error (status and evidence), not a body too
    /// large, and the connection it arrived on is freed.
    @Test(arguments: Wire.allCases, [CachePolicy.withoutCache, .followHTTP])
    func anErrorPageLargerThanTheLimitIsStillTheServersError(wire: Wire, policy: CachePolicy) async throws {
        // `followHTTP` turns on the in-flight sharing of GETs, which reads the answer too.
        try await withServer(wire, configure: { $0.maximumBodySize = 1 << 20; $0.cachePolicy = policy }) { server, client in
            let page = "<html><h1>502 Bad Gateway</h1>" + String(repeating: "x", count: 3 << 20) + "</html>"
            server.route("GET", "/items", respond: .text(page, status: 502, contentType: "text/html"))
            server.route("GET", "/ok", respond: .json("{}"))
            let error = await #expect(throws: CourierError.self) { try await client.send(Call<JSON>()) }
            #expect(error?.kind == .unacceptableStatus)
            #expect(error?.status?.code == 502)
            #expect(error?.bodySnippet?.hasPrefix("<html><h1>502 Bad Gateway</h1>") == true)
            _ = try await client.send(Call<JSON>(path: "/ok"))
        }
    }

    /// A `Content-Length` that is not a number is an invalid response on both transports, and the
    /// connection is not reused. (An over-large or listed one also fails over AsyncHTTPClient;
    /// curl on Linux reads a prefix of it and waits for bytes that don't come, until the timeout.)
    // HTTP/2 frames its bodies itself: a malformed Content-Length line is HTTP/1.1's to send.
    @Test(arguments: Wire.allCases.filter { $0.tls?.offersHTTP2 != true }, ["abc", "-5"])
    func aContentLengthThatIsNotANumberIsAnInvalidResponse(wire: Wire, value: String) async throws {
        try await withServer(wire) { server, client in
            server.route("GET", "/items", respond: .json("[]").adding(header: "Content-Length", value: value))
            server.route("GET", "/ok", respond: .json("{}"))
            let error = await #expect(throws: CourierError.self) { try await client.send(Call<[Item]>()) }
            #expect(error?.kind == .invalidResponse, "\(String(describing: error))")
            _ = try await client.send(Call<JSON>(path: "/ok"))
        }
    }

    /// A hotel Wi-Fi's sign-in page answers 200 with HTML: the error says what it most likely is.
    @Test func aSignInPageWhereJSONWasExpectedSaysWhatItLikelyIs() async throws {
        try await withServer(.asyncHTTPClient) { server, client in
            server.route("GET", "/items", respond: .text("<html><body>Sign in to Hotel WiFi</body></html>", status: 200, contentType: "text/html"))
            let error = await #expect(throws: CourierError.self) { try await client.send(Call<[Item]>()) }
            #expect(error?.kind == .decodingFailed)
            #expect(error?.detail.contains("the answer is an HTML page") == true)
            #expect(error?.bodySnippet?.contains("Sign in to Hotel WiFi") == true)
        }
    }

    @Test(arguments: Wire.allCases)
    func errorStatusesCarryTheServersMessage(wire: Wire) async throws {
        try await withServer(wire) { server, client in
            server.route("GET", "/items", respond: .json(#"{"message":"Item is gone"}"#, status: 410))
            let error = await #expect(throws: CourierError.self) { try await client.send(Call<Item>()) }
            #expect(error?.kind == .server)
            #expect(error?.errorDescription == "Item is gone")
            #expect(error?.status?.code == 410)
            #expect(error?.request?.url == server.baseURL.absoluteString + "/items")
        }
    }

    @Test(arguments: Wire.allCases)
    func anHTMLBadGatewayPageIsAnUnacceptableStatus(wire: Wire) async throws {
        try await withServer(wire) { server, client in
            server.route("GET", "/items", respond: .text("<html><h1>502 Bad Gateway</h1></html>", status: 502, contentType: "text/html"))
            let error = await #expect(throws: CourierError.self) { try await client.send(Call<Item>()) }
            #expect(error?.kind == .unacceptableStatus)
            #expect(error?.bodySnippet?.contains("502 Bad Gateway") == true)
        }
    }

    @Test(arguments: Wire.allCases, [
        #"{"id":1,"title":"#, "not json", "", #"{"id":1}"#, #"{"id":1,"title":null}"#,
    ])
    func badPayloadsAreDecodingErrors(wire: Wire, body: String) async throws {
        try await withServer(wire) { server, client in
            server.route("GET", "/items", respond: .json(body))
            let error = await #expect(throws: CourierError.self) { try await client.send(Call<Item>()) }
            #expect(error?.kind == .decodingFailed)
        }
    }

    @Test(arguments: Wire.allCases)
    func nonUTF8BytesAreADecodingError(wire: Wire) async throws {
        try await withServer(wire) { server, client in
            server.route("GET", "/items", respond: .bytes([0xC3, 0x28, 0xFF, 0xFE], contentType: "application/json"))
            let error = await #expect(throws: CourierError.self) { try await client.send(Call<Item>()) }
            #expect(error?.kind == .decodingFailed)
        }
    }

    @Test(arguments: Wire.allCases)
    func aTruncatedBodyIsALostConnection(wire: Wire) async throws {
        try await withServer(wire) { server, client in
            let body = #"{"id":1,"title":""# + String(repeating: "x", count: 4000) + #""}"#
            server.route("GET", "/items", respond: .json(body).with(fault: .closeMidBody(afterBytes: 100)))
            let error = await #expect(throws: CourierError.self) { try await client.send(Call<Item>()) }
            #expect(error?.kind == .connectionLost, "\(String(describing: error))")
        }
    }

    @Test(arguments: Wire.allCases)
    func aResetConnectionIsALostConnection(wire: Wire) async throws {
        try await withServer(wire) { server, client in
            server.route("GET", "/items", respond: MockResponse.status(200).with(fault: .reset))
            let error = await #expect(throws: CourierError.self) { try await client.send(Call<Item>()) }
            #expect(error?.kind == .connectionLost)
        }
    }

    @Test(arguments: Wire.allCases)
    func aRefusedConnectionIsNoConnectionAndFast(wire: Wire) async throws {
        try await withServer(wire) { server, client in
            try await server.goDown()
            let started = ContinuousClock.now
            let error = await #expect(throws: CourierError.self) { try await client.send(Call<Item>(timeout: .seconds(300))) }
            // The whole error when it is another kind: what answered on a port nothing should listen on.
            #expect(error?.kind == .noConnection, "\(error.map { String(reflecting: $0) } ?? "no error")")
            #expect(error?.errorDescription == "No Internet connection")
            #expect(error?.detail.contains("(error set)") == false, "a readable detail: \(error?.detail ?? "")")
            // It didn't wait for the 300 s timeout: half of it is beyond any machine's slowness.
            #expect(ContinuousClock.now - started < .seconds(150))
        }
    }

    /// The endpoint's timeout, not the client's (300 s), ends a call the server never answers.
    @Test(arguments: Wire.allCases)
    func aServerThatNeverAnswersTimesOut(wire: Wire) async throws {
        try await withServer(wire, configure: { $0.timeout = .seconds(300) }) { server, client in
            server.route("GET", "/items", respond: MockResponse.status(200).with(fault: .neverAnswer))
            let started = ContinuousClock.now
            let error = await #expect(throws: CourierError.self) { try await client.send(Call<Item>(timeout: .milliseconds(1200))) }
            let elapsed = ContinuousClock.now - started
            #expect(error?.kind == .timedOut)
            // Not before the timeout (a slow machine only adds to this)...
            #expect(elapsed >= .milliseconds(1100))
            // ...and not at the client's 300 s: half of it is beyond any machine's slowness.
            #expect(elapsed < .seconds(150))
        }
    }

    @Test(arguments: Wire.allCases)
    func aBodyThatArrivesTooSlowlyTimesOut(wire: Wire) async throws {
        // The head comes at once, then a byte every 100 ms: the body would take 100 s, and no gap
        // comes near the 1.2 s timeout, which covers the whole response (not the time between bytes).
        try await withServer(wire, configure: { $0.timeout = .seconds(300) }) { server, client in
            let body = "[" + String(repeating: "1,", count: 500) + "1]"
            server.route("GET", "/drip", respond: .json(body).with(fault: .drip(chunkSize: 1, interval: .milliseconds(100))))
            let started = ContinuousClock.now
            let error = await #expect(throws: CourierError.self) { try await client.send(Call<[Int]>(path: "/drip", timeout: .milliseconds(1200))) }
            let elapsed = ContinuousClock.now - started
            #expect(error?.kind == .timedOut)
            #expect(elapsed >= .milliseconds(1100))
            // Half the body's 100 s: beyond any machine's slowness, far short of the whole body.
            #expect(elapsed < .seconds(50))
        }
    }

    @Test(arguments: Wire.allCases)
    func aBodyOverTheLimitIsRejected(wire: Wire) async throws {
        try await withServer(wire, configure: { $0.maximumBodySize = 64 * 1024 }) { server, client in
            server.route("GET", "/big", respond: .json("[" + String(repeating: "1,", count: 100_000) + "1]"))
            let error = await #expect(throws: CourierError.self) { try await client.send(Call<[Int]>(path: "/big")) }
            #expect(error?.kind == .bodyTooLarge)
        }
    }

    /// An error page larger than the part a call keeps, its length announced and all of it sent at
    /// once: the call fails with the server's status and the page's first bytes, whether the
    /// transport stops the transfer or lets it end (URLSession on Linux, whose body is all there).
    @Test(arguments: Wire.allCases)
    func anErrorPageOverTheLimitIsTheServersErrorWithItsFirstBytes(wire: Wire) async throws {
        try await withServer(wire, configure: { $0.maximumBodySize = 4096 }) { server, client in
            let page = [UInt8](repeating: UInt8(ascii: "x"), count: 16 * 1024)
            server.route("GET", "/page", respond: MockResponse(status: 502, headers: [MockHeader("Content-Type", "text/html")], body: page))
            for _ in 0..<20 {
                let error = await #expect(throws: CourierError.self) { try await client.send(Call<[Int]>(path: "/page")) }
                #expect(error?.status == .badGateway)
                #expect(error?.bodySnippet?.count == CourierError.snippetLimit + 1)
            }
        }
    }

    /// 8 MiB against a 256 KiB limit, of which the server sends 512 KiB and holds the rest back
    /// until the test ends: the call can only fail with `bodyTooLarge` if the transport stops reading
    /// at the limit (announced or not), so a huge response never costs more than the limit.
    @Test(arguments: Wire.allCases, [true, false])
    func aBodyOverTheLimitIsRejectedWhileItArrives(wire: Wire, announced: Bool) async throws {
        let rest = Level()
        defer { rest.open() }
        try await withServer(wire, configure: { $0.maximumBodySize = 256 * 1024 }) { server, client in
            let chunk = [UInt8](repeating: UInt8(ascii: "1"), count: 64 * 1024)
            let response: MockResponse
            if announced {
                response = MockResponse(status: 200, body: Array(repeating: chunk, count: 128).flatMap { $0 })
            } else {
                // Chunked framing written by hand: the server then sends no Content-Length.
                let framed = Array(repeating: Array("10000\r\n".utf8) + chunk + Array("\r\n".utf8), count: 128).flatMap { $0 }
                response = MockResponse(status: 200, headers: [MockHeader("Transfer-Encoding", "chunked")], body: framed + Array("0\r\n\r\n".utf8))
            }
            let held = Fault.paced(chunkSize: 64 * 1024) { chunk in
                if chunk >= 8 { await rest.wait() }
            }
            server.route("GET", "/huge", respond: response.with(fault: held))
            // A transport that read on would wait for the rest until this timeout: `timedOut`.
            let error = await #expect(throws: CourierError.self) { try await client.send(Call<Data>(path: "/huge", timeout: .seconds(60))) }
            #expect(error?.kind == .bodyTooLarge, "the transport read past the limit")
        }
    }

    /// The server sends a first chunk and holds the rest until the test ends, so only the cancel
    /// can end the call. At the server the exchange ends: over HTTP/1.1 its connection closes (a
    /// response cut short leaves it unusable), over HTTP/2 its stream is reset and the connection stays.
    @Test(arguments: Wire.allCases)
    func cancellingMidResponseIsPromptAndEndsTheExchangeAtTheServer(wire: Wire) async throws {
        let firstSent = Level(), rest = Level()
        defer { rest.open() }
        try await withServer(wire, configure: { $0.timeout = .seconds(300) }) { server, client in
            let body = "[" + String(repeating: "1,", count: 5000) + "1]"
            let held = Fault.paced(chunkSize: 100) { chunk in
                guard chunk >= 1 else { return }
                firstSent.open()
                await rest.wait()
            }
            server.route("GET", "/slow", respond: .json(body).with(fault: held))
            let task = Task { try await client.send(Call<[Int]>(path: "/slow")) }
            // Mid-response: the server has sent the head and the first chunk.
            #expect(await firstSent.wait(within: .seconds(120)))
            #expect(server.streamsOpen == 1)
            let started = ContinuousClock.now
            task.cancel()
            let error = await #expect(throws: CourierError.self) { try await task.value }
            #expect(error?.kind == .cancelled)
            // Not at the 300 s timeout: half of it is beyond any machine's slowness.
            #expect(ContinuousClock.now - started < .seconds(150))
            #expect(await server.waitUntilStreamsClosed(timeout: .seconds(120)))
        }
    }

    /// 64 calls, more than the connection pool holds: the queued ones wait for a connection. The
    /// pool's wait (10 s by default) and the calls' timeout are sized for a loaded 2-core machine.
    @Test(arguments: Wire.allCases)
    func manyConcurrentCallsAllSucceed(wire: Wire) async throws {
        let server = try await MockServer.start(tls: wire.tls)
        var httpClient: HTTPClient?
        let transport: any ClientTransport
        switch wire.kind {
        case .urlSession:
            transport = try wire.make()
        case .asyncHTTPClient:
            var configuration = AsyncHTTPClientTransport.recommendedConfiguration
            configuration.timeout.connect = .seconds(300)
            if wire.tls != nil {
                transport = try AsyncHTTPClientTransport(trust: .only(roots: [TestCertificates.caPEM]), configuration: configuration)
            } else {
                let made = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
                httpClient = made
                transport = AsyncHTTPClientTransport(client: made, decodesResponses: true)
            }
        }
        let client = Client(baseURL: server.baseURL, transport: transport) { $0.timeout = .seconds(300) }
        server.route("GET", "/items/*") { request in .json(#"{"id":\#(request.path.split(separator: "/").last ?? "0"),"title":"t"}"#) }
        var ids = Set<Int>()
        var failure: (any Error)?
        do {
            ids = try await withThrowingTaskGroup(of: Int.self) { group in
                for id in 1...64 { group.addTask { try await client.send(Call<Item>(path: "/items/\(id)")).id } }
                return try await group.reduce(into: Set<Int>()) { $0.insert($1) }
            }
        } catch {
            failure = error
        }
        try? await httpClient?.shutdown()
        try await server.shutdown()
        #expect(failure == nil, "a call failed: \(String(describing: failure))")
        #expect(ids == Set(1...64))
    }
}
