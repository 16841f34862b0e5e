import Courier
import CourierExamples
import CourierTesting
import Foundation
import Testing

@Suite struct RequestBuildingTests {
    private func sent(_ endpoint: some Endpoint, configure: (inout Client.Configuration) -> Void = { _ in }) async throws -> (HTTPRequest, Data) {
        let (client, transport) = stubClient(body: "{}", configure: configure)
        _ = try? await client.response(for: endpoint)
        return try #require(transport.requests.first)
    }

    @Test func interpolatedPathValuesCannotInjectSeparators() async throws {
        let id = "a/b?c#d e%"
        let (request, _) = try await sent(TestEndpoint<JSON>(path: "/users/\(id)/friends"))
        #expect(request.path == "/users/a%2Fb%3Fc%23d%20e%25/friends")
    }

    /// Every ASCII byte, escaped or kept exactly as RFC 3986 allows in a path segment and in a query value.
    @Test func everyASCIIByteIsEscapedByTheRules() throws {
        let unreserved = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
        let segmentKeeps = Set(unreserved + "!$&'()*+,;=:@")
        let queryKeeps = Set(unreserved + "!$'()*,;:@/?")
        let client = Client(baseURL: stubBaseURL, transport: StubTransport.answering(body: "{}"))
        for byte in UInt8(1)...UInt8(127) {
            let character = Character(Unicode.Scalar(byte))
            let escaped = String(format: "%%%02X", byte)
            let text = String(character) + "x"
            let path = EndpointPath(stringInterpolation: {
                var interpolation = EndpointPath.StringInterpolation(literalCapacity: 1, interpolationCount: 1)
                interpolation.appendLiteral("/")
                interpolation.appendInterpolation(text)
                return interpolation
            }())
            #expect(path.encoded == "/" + (segmentKeeps.contains(character) ? String(character) : escaped) + "x", "byte \(byte)")
            let query = try client.requestPath(for: TestEndpoint<JSON>(path: "/q", query: ["v": text]))
            #expect(query == "/q?v=" + (queryKeeps.contains(character) ? String(character) : escaped) + "x", "byte \(byte)")
        }
    }

    /// The seeds' designs write `["threadId": threadId, "members": members]`: variables of the
    /// common types go into a literal as they are, and a nil optional is left out.
    @Test func variablesOfTheCommonTypesGoStraightIntoALiteral() async throws {
        let (client, transport) = stubClient(body: "{}")
        let limit = 20
        let name: String? = nil
        let tags = ["a", "b"]
        let id = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        let site = try #require(URL(string: "https://example.com/x"))
        let since = Date(timeIntervalSince1970: 0)
        let filter = ["city": "Paris"]
        let query: Parameters = [
            "limit": limit, "name": name, "tags": tags, "id": id, "site": site, "since": since, "filter": filter,
            "ratio": 0.5, "on": true,
        ]
        let path = try client.requestPath(for: TestEndpoint<JSON>(path: "/q", query: query))
        #expect(path == "/q?limit=20&tags=a&tags=b&id=E621E1F8-C36C-495A-93FC-0C247A3E6E5F&site=https://example.com/x"
            + "&since=1970-01-01T00:00:00Z&filter%5Bcity%5D=Paris&ratio=0.5&on=true")

        _ = try await client.send(TestEndpoint<JSON>(method: .post, path: "/q", parameters: query))
        let body = try JSON(data: try #require(transport.requests.last?.body))
        #expect(body["limit"]?.int == 20)
        #expect(body["name"] == .null)
        #expect(body["filter"]?["city"]?.string == "Paris")
        #expect(body[path: "tags.1"]?.string == "b")
    }

    @Test func dotSegmentsAreRejected() async throws {
        let (client, transport) = stubClient(body: "{}")
        await #expect(throws: CourierError.self) { try await client.send(TestEndpoint<JSON>(path: "/files/\("..")")) }
        #expect(transport.requests.isEmpty)
    }

    @Test func aHandBuiltQueryInThePathIsInvalid() async throws {
        let (client, transport) = stubClient(body: "{}")
        let error = await #expect(throws: CourierError.self) { try await client.send(TestEndpoint<JSON>(path: "/items?page=2")) }
        #expect(error?.kind == .invalidRequest)
        #expect(error?.endpoint == "TestEndpoint")
        #expect(transport.requests.isEmpty)
    }

    @Test(arguments: [HTTPRequest.Method.get, .head, .delete])
    func parametersGoToTheQueryForBodilessMethods(method: HTTPRequest.Method) async throws {
        let (request, body) = try await sent(TestEndpoint<Empty>(method: method, parameters: ["q": "swift & co", "page": 2, "tags": ["a", "b"], "none": nil]))
        #expect(request.path == "/items?q=swift%20%26%20co&page=2&tags=a&tags=b")
        #expect(body.isEmpty)
        #expect(request.headerFields[.contentType] == nil)
    }

    @Test func queryNumbersAndBooleansAreWrittenExactly() async throws {
        let query: Parameters = ["ids": [1, -2], "big": 9_007_199_254_740_993, "ratio": 2.5, "whole": 3.0, "flag": true, "off": false]
        let (request, _) = try await sent(TestEndpoint<Empty>(query: query))
        // Integers are never routed through Double (2^53 + 1 keeps its last digit); whole doubles drop ".0".
        #expect(request.path == "/items?ids=1&ids=-2&big=9007199254740993&ratio=2.5&whole=3&flag=true&off=false")
    }

    /// JSON keeps integers exact both ways: a body carries 2^53 + 1 as written, and a response's
    /// 2^53 + 1 reads back as that integer, not the nearest `Double`.
    @Test func jsonKeepsLargeIntegersExact() async throws {
        let (request, body) = try await sent(TestEndpoint<Empty>(method: .post, parameters: ["big": 9_007_199_254_740_993, "ratio": 2.5]))
        #expect(request.headerFields[.contentType] == "application/json")
        #expect(String(decoding: body, as: UTF8.self).contains("9007199254740993"))
        let json = try JSON(data: Data(#"{"id": 9007199254740993, "ratio": 1.5, "whole": 2.0, "huge": 1e300}"#.utf8))
        #expect(json["id"] == .integer(9_007_199_254_740_993))
        #expect(json["id"]?.int == 9_007_199_254_740_993)
        #expect(json["ratio"] == .number(1.5))
        #expect(json["whole"]?.int == 2)
        #expect(json["huge"]?.double == 1e300)
        #expect(json["huge"]?.int == nil)
        let literal: JSON = ["id": 9_007_199_254_740_993, "tags": ["a", nil], "on": true]
        #expect(try JSON(data: JSONEncoder().encode(literal)) == literal)
    }

    /// Any `Encodable` goes into a literal: an app's own type nests as `outer[inner]`, dates inside
    /// arrays are ISO 8601 like a date on its own, and a ``JSON`` value goes as it is.
    @Test func anyEncodableValueGoesIntoALiteral() async throws {
        struct Window: Encodable, Sendable { var from = 1; var to: Int? = nil; var label = "a b" }
        let days = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 86_400)]
        let extra: JSON = ["x": 1]
        let query: Parameters = ["window": Window(), "days": days, "extra": extra, "id": Int64(7), "small": Int32(-3)]
        let (request, _) = try await sent(TestEndpoint<Empty>(query: query))
        #expect(request.path == "/items?window%5Bfrom%5D=1&window%5Blabel%5D=a%20b&days=1970-01-01T00:00:00Z&days=1970-01-02T00:00:00Z"
            + "&extra%5Bx%5D=1&id=7&small=-3")
    }

    /// A value that can't be encoded fails the call as an invalid request, naming the parameter,
    /// and nothing is sent.
    @Test func aValueThatCannotBeEncodedFailsTheCall() async throws {
        struct Broken: Encodable, Sendable {
            struct Refused: Error {}
            func encode(to encoder: any Encoder) throws { throw Refused() }
        }
        let (client, transport) = stubClient(body: "{}")
        for endpoint in [TestEndpoint<Empty>(query: ["ok": 1, "bad": Broken()]), TestEndpoint<Empty>(method: .post, parameters: ["bad": Broken()])] {
            let error = await #expect(throws: CourierError.self) { try await client.send(endpoint) }
            #expect(error?.kind == .invalidRequest)
            #expect(error?.detail.contains("bad") == true)
        }
        #expect(transport.requests.isEmpty)
    }

    @Test(arguments: [HTTPRequest.Method.post, .put, .patch])
    func parametersGoToAJSONBodyForOtherMethods(method: HTTPRequest.Method) async throws {
        let (request, body) = try await sent(TestEndpoint<Empty>(method: method, parameters: ["title": "Hi", "count": 3]))
        #expect(request.path == "/items")
        #expect(request.headerFields[.contentType] == "application/json")
        let json = try JSON(data: body)
        #expect(json["title"]?.string == "Hi")
        #expect(json["count"]?.int == 3)
    }

    @Test func encodableQueryOmitsNilFieldsAndFlattensNestedValues() async throws {
        struct Filter: Encodable, Sendable {
            var search: String? = "café"
            var page: Int? = nil
            var range = Range(from: 1, to: 5)
            struct Range: Encodable, Sendable { var from: Int; var to: Int }
        }
        let (request, _) = try await sent(TestEndpoint<Empty>(query: .encodable(Filter())))
        #expect(request.path == "/items?range%5Bfrom%5D=1&range%5Bto%5D=5&search=caf%C3%A9")
    }

    @Test func aTypeCanChooseItsOwnQueryItems() async throws {
        struct Page: Encodable, QueryItemsConvertible {
            var number: Int
            var queryItems: [QueryItem] { [QueryItem(name: "p", value: "\(number)")] }
        }
        let (request, _) = try await sent(TestEndpoint<Empty>(query: .encodable(Page(number: 7))))
        #expect(request.path == "/items?p=7")
    }

    @Test func formBodiesAreURLEncoded() async throws {
        let (request, body) = try await sent(TestEndpoint<Empty>(method: .post, body: .form(["name": "Ann Lee", "tag": "a+b"])))
        #expect(request.headerFields[.contentType] == "application/x-www-form-urlencoded")
        #expect(String(decoding: body, as: UTF8.self) == "name=Ann%20Lee&tag=a%2Bb")
    }

    @Test func rawBodiesKeepTheirBytesAndContentType() async throws {
        let bytes = Data([0, 255, 1, 254])
        let (request, body) = try await sent(TestEndpoint<Empty>(method: .put, body: .data(bytes, contentType: "image/png")))
        #expect(request.headerFields[.contentType] == "image/png")
        #expect(body == bytes)
    }

    @Test func commonHeadersAndQueryAreAddedAndEndpointHeadersWin() async throws {
        let (request, _) = try await sent(TestEndpoint<Empty>(headers: [.accept: "text/csv"])) { config in
            config.defaultHeaders[.userAgent] = "CourierTests"
            config.commonQuery = [QueryItem(name: "app", value: "demo")]
        }
        #expect(request.path == "/items?app=demo")
        #expect(request.headerFields[values: .accept] == ["text/csv"])
        #expect(request.headerFields[.userAgent] == "CourierTests")
    }

    @Test func theFriendsEndpointsMapToTheirRoutes() async throws {
        let (list, _) = try await sent(FriendsEndpoints.List(userID: 7, limit: 2))
        #expect(list.method == .get && list.path == "/users/7/friends?limit=2")
        let (noLimit, _) = try await sent(FriendsEndpoints.List(userID: 7, limit: nil))
        #expect(noLimit.path == "/users/7/friends")
        let (add, addBody) = try await sent(FriendsEndpoints.Add(userID: 7, friendID: 9))
        #expect(add.method == .post && add.path == "/users/7/friends")
        #expect(try JSON(data: addBody)["friendId"]?.int == 9)
        let (remove, _) = try await sent(FriendsEndpoints.Remove(userID: 7, friendID: 9))
        #expect(remove.method == .delete && remove.path == "/users/7/friends/9")
    }

    @Test func enumActionsMapToMethodPathAndParameters() async throws {
        let (missed, _) = try await sent(ThreadRequest.loadMissed(threadID: "t 1", since: Date(timeIntervalSince1970: 0), limit: 5))
        #expect(missed.method == .get)
        #expect(missed.path == "/api/v1/threads.missed?threadId=t%201&since=1970-01-01T00:00:00Z&limit=5")
        let (update, body) = try await sent(ThreadRequest.update(threadID: "t1", changes: ThreadChanges(title: "New")))
        #expect(update.method == .post)
        let json = try JSON(data: body)
        #expect(json[path: "changes.title"]?.string == "New")
        #expect(json[path: "changes"]?.object?.keys.contains("readOnly") == false)
        #expect(ThreadRequest.delete(threadID: "x").operationName == "ThreadRequest.delete")
    }

    @Test func redactionHidesSecretsInURLsAndHeaders() {
        let redaction = Redaction()
        #expect(redaction.redact(url: "https://h/p?user=1&access_token=abc&Key=z") == "https://h/p?user=1&access_token=REDACTED&Key=REDACTED")
        let fields: HTTPFields = [.authorization: "Bearer x", .xAuthToken: "t", .accept: "a"]
        let redacted = redaction.redact(fields)
        #expect(redacted[.authorization] == "REDACTED")
        #expect(redacted[.xAuthToken] == "REDACTED")
        #expect(redacted[.accept] == "a")
    }

    @Test func environmentsAreSelectedWithoutConditionalCompilation() {
        let staging = ServerEnvironment("staging", baseURL: "https://staging.example.com")
        let release = ServerEnvironment("release", baseURL: "https://api.example.com")
        #expect(ServerEnvironment.selected(from: [staging, release], processEnvironment: ["COURIER_ENVIRONMENT": "staging"], default: release) == staging)
        #expect(ServerEnvironment.selected(from: [staging, release], processEnvironment: [:], default: release) == release)
        #expect(ServerEnvironment.selected(from: [staging, release], processEnvironment: ["COURIER_ENVIRONMENT": "nope"], default: release) == release)
    }
}

@Suite struct EndpointNameTests {
    @Test func namesAreStableBoundedLabels() {
        struct Local: Endpoint {
            typealias Response = JSON
            var path: EndpointPath { "/" }
        }
        #expect(FriendsEndpoints.List(userID: 1).operationName == "FriendsEndpoints.List")
        #expect(ThreadRequest.loadMissed(threadID: "t", since: Date(), limit: 1).operationName == "ThreadRequest.loadMissed")
        #expect(Local().operationName == "EndpointNameTests.Local")
    }

    /// The type part is cached per type; the case part must still follow each value.
    @Test func enumNamesFollowTheCaseOfEachValue() {
        enum Account: Endpoint {
            typealias Response = JSON
            case profile
            case avatar(size: Int)
            case rename(String)
            var path: EndpointPath { "/" }
        }
        #expect(Account.profile.operationName == "EndpointNameTests.Account.profile")
        #expect(Account.avatar(size: 64).operationName == "EndpointNameTests.Account.avatar")
        #expect(Account.rename("(x)").operationName == "EndpointNameTests.Account.rename")
        #expect(Account.profile.operationName == "EndpointNameTests.Account.profile")
    }

    /// A path parameter called `name` is user data: it must not become the operation's label.
    @Test func aPropertyCalledNameDoesNotReplaceTheOperationName() async throws {
        struct GetUser: Endpoint {
            typealias Response = JSON
            var name: String
            var path: EndpointPath { "/users/\(name)" }
        }
        let endpoint = GetUser(name: "alice@example.com")
        #expect(endpoint.operationName == "EndpointNameTests.GetUser")
        #expect(endpoint.path.template == "/users/{}")
        let (client, _) = stubClient(status: .notFound, body: "{}")
        let error = try #require(await #expect(throws: CourierError.self) { try await client.send(endpoint) })
        #expect(error.endpoint == "EndpointNameTests.GetUser")
    }

    @Test func pathTemplatesKeepLiteralsAndMarkValues() {
        let id = 42
        let path: EndpointPath = "/users/\(id)/friends/\("a b")"
        #expect(path.template == "/users/{}/friends/{}")
        #expect(EndpointPath(segments: ["users", "7"]).template == "/{}/{}")
        #expect(EndpointPath(stringLiteral: "/health").template == "/health")
    }
}
