import Courier
import CourierExamples
import CourierTesting
import Foundation
import Testing

@Suite struct ResponseHandlingTests {
    @Test func decodesModels() async throws {
        let (client, _) = stubClient(body: #"[{"id":1,"title":"a"},{"id":2,"title":"b"}]"#)
        let items = try await client.send(TestEndpoint<[Item]>())
        #expect(items == [Item(id: 1, title: "a"), Item(id: 2, title: "b")])
    }

    @Test func aMissingFieldNamesTheKeyPathAndTheEndpoint() async throws {
        let (client, _) = stubClient(body: #"[{"id":1,"title":"a"},{"id":2}]"#)
        let error = await #expect(throws: CourierError.self) { try await client.send(TestEndpoint<[Item]>()) }
        #expect(error?.kind == .decodingFailed)
        #expect(error?.detail.contains("missing key 'title' at [1].title") == true)
        #expect(error?.detail.contains("TestEndpoint") == true)
        #expect(error?.errorDescription == "Something went wrong")
    }

    @Test func nullWhereAStringWasExpectedIsADecodingError() async throws {
        let (client, _) = stubClient(body: #"{"id":1,"title":null}"#)
        let error = await #expect(throws: CourierError.self) { try await client.send(TestEndpoint<Item>()) }
        #expect(error?.kind == .decodingFailed)
        #expect(error?.detail.contains("title") == true)
    }

    @Test(arguments: ["{not json", "", "\u{FF}\u{FE}garbage", #"{"id":1,"ti"#])
    func badBodiesAreDecodingErrorsWithTheirEvidence(body: String) async throws {
        let (client, _) = stubClient(body: body)
        let error = await #expect(throws: CourierError.self) { try await client.send(TestEndpoint<Item>()) }
        #expect(error?.kind == .decodingFailed)
        #expect(error?.status == .ok)
        #expect(error?.request?.description == "GET https://api.example.com/v1/items")
    }

    @Test func nonUTF8BytesAreADecodingError() async throws {
        let transport = StubTransport { _, _ in (HTTPResponse(status: .ok), Data([0xC3, 0x28, 0xFF, 0x00])) }
        let client = Client(baseURL: stubBaseURL, transport: transport)
        let error = await #expect(throws: CourierError.self) { try await client.send(TestEndpoint<Item>()) }
        #expect(error?.kind == .decodingFailed)
    }

    @Test func theServersMessageBecomesTheErrorText() async throws {
        let (client, _) = stubClient(status: .badRequest, body: #"{"message":"Name is taken"}"#)
        let error = await #expect(throws: CourierError.self) { try await client.send(TestEndpoint<Item>()) }
        #expect(error?.kind == .server)
        #expect(error?.family == .server)
        #expect(error?.errorDescription == "Name is taken")
        #expect(error?.status == .badRequest)
        #expect(error?.bodySnippet == #"{"message":"Name is taken"}"#)
    }

    @Test func theMessageFieldIsConfigurable() async throws {
        let (client, _) = stubClient(status: .init(code: 422), body: #"{"problem":{"text":"Too short"}}"#) {
            $0.errorMessagePaths = ["problem.text"]
        }
        let error = await #expect(throws: CourierError.self) { try await client.send(TestEndpoint<Item>()) }
        #expect(error?.serverMessage == "Too short")
    }

    @Test func anHTMLErrorPageIsAnUnacceptableStatusWithASnippet() async throws {
        let page = "<html><body><h1>502 Bad Gateway</h1>" + String(repeating: "x", count: 5000) + "</body></html>"
        let (client, _) = stubClient(status: .badGateway, body: page, headers: [.contentType: "text/html"])
        let error = await #expect(throws: CourierError.self) { try await client.send(TestEndpoint<Item>()) }
        #expect(error?.kind == .unacceptableStatus)
        #expect(error?.family == .other)
        #expect(error?.errorDescription == "Something went wrong")
        #expect(error?.bodySnippet?.hasPrefix("<html>") == true)
        #expect((error?.bodySnippet?.utf8.count ?? .max) <= CourierError.snippetLimit + 3)
    }

    @Test func anEmptyResponseDecodesFrom204() async throws {
        let (client, _) = stubClient(status: .noContent, body: "")
        let value = try await client.send(TestEndpoint<Empty>())
        #expect(value == Empty())
    }

    @Test func codeMessageEnvelopesUnwrapDataAndFailInsideA200() async throws {
        let (ok, _) = stubClient(body: #"{"code":0,"msg":"ok","data":{"accountId":"a1","phone":"+1"}}"#)
        #expect(try await ok.send(BindUser(phone: "+1", code: "0000")) == BoundAccount(accountId: "a1", phone: "+1"))

        let (failing, _) = stubClient(body: #"{"code":1001,"msg":"Phone already bound"}"#)
        let error = await #expect(throws: CourierError.self) { try await failing.send(BindUser(phone: "+1", code: "0000")) }
        #expect(error?.kind == .envelope)
        #expect(error?.errorDescription == "Phone already bound")
        #expect(error?.family == .server)
    }

    @Test func statusMessageEnvelopes() async throws {
        struct Status: EnvelopedEndpoint {
            typealias Envelope = StatusMessageEnvelope<Item>
            var path: EndpointPath { "/status" }
        }
        let (ok, _) = stubClient(body: #"{"status":"ok","data":{"id":1,"title":"t"}}"#)
        #expect(try await ok.send(Status()) == Item(id: 1, title: "t"))
        let (failing, _) = stubClient(body: #"{"status":"error","message":"Thread is archived"}"#)
        let error = await #expect(throws: CourierError.self) { try await failing.send(Status()) }
        #expect(error?.serverMessage == "Thread is archived")
    }

    @Test func theResponseValidatorSeesRawBodiesAndCanFailTheCall() async throws {
        struct Maintenance: LocalizedError { var errorDescription: String? { "Down for maintenance" } }
        let (client, _) = stubClient(body: #"{"id":1,"title":"t","maintenance":true}"#) { config in
            config.responseValidator = { input in
                (try? JSON(data: input.body))?["maintenance"]?.bool == true ? Maintenance() : nil
            }
        }
        let error = await #expect(throws: CourierError.self) { try await client.send(TestEndpoint<Item>()) }
        #expect(error?.kind == .rejected)
        #expect(error?.errorDescription == "Down for maintenance")
    }

    @Test func aCustomDecoderIsUsedForEveryEndpoint() async throws {
        struct UppercasingDecoder: ResponseDecoder {
            func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
                try JSONDecoder().decode(type, from: Data(String(decoding: data, as: UTF8.self).replacingOccurrences(of: "title", with: "TITLE").utf8))
            }
        }
        struct Shouting: Codable, Sendable { var TITLE: String }
        let (client, _) = stubClient(body: #"{"title":"x"}"#) { $0.decoder = UppercasingDecoder() }
        #expect(try await client.send(TestEndpoint<Shouting>()).TITLE == "x")
    }

    @Test func looseJSONHasTypedAccessors() throws {
        let json = try JSON(data: Data(#"{"status":"ok","message":"hi","data":{"members":[{"name":"Ann","age":30}]}}"#.utf8))
        #expect(json["status"]?.string == "ok")
        #expect(json["message"]?.string == "hi")
        #expect(json["nothing"] == nil)
        #expect(try JSON(data: Data("null".utf8)) == .null)
        #expect(json[path: "data.members.0.name"]?.string == "Ann")
        #expect(json["data"]?["members"]?[0]?["age"]?.int == 30)
        #expect(json[path: "data.members.5.name"] == nil)
        #expect(json["status"]?.int == nil)
    }

    @Test func responsesCarryStatusHeadersSourceAndTiming() async throws {
        let (client, _) = stubClient(body: #"{"id":1,"title":"a"}"#, headers: [.contentType: "application/json", .eTag: "\"v1\""])
        let response = try await client.response(for: TestEndpoint<Item>())
        #expect(response.head.status == .ok)
        #expect(response.head.headerFields[.eTag] == "\"v1\"")
        #expect(response.source == .network)
        #expect(response.attempts == 1)
        #expect(response.bodySize == 20)
        #expect(response.duration > .zero)
    }

    @Test func bodiesOverTheLimitFailWithATypedError() async throws {
        let (client, _) = stubClient(body: String(repeating: "a", count: 2000)) { $0.maximumBodySize = 1000 }
        let error = await #expect(throws: CourierError.self) { try await client.send(TestEndpoint<JSON>()) }
        #expect(error?.kind == .bodyTooLarge)
    }
}

/// Error texts that read right: no dangling space, no cause printed twice.
@Suite struct ErrorTextTests {
    @Test func aStatusWithoutReasonPhraseHasNoTrailingSpace() async throws {
        let (client, _) = stubClient(status: .init(code: 599), body: "")
        let error = try #require(await #expect(throws: CourierError.self) { try await client.send(TestEndpoint<JSON>()) })
        #expect(error.detail == "The server answered 599")
        let (known, _) = stubClient(status: .badGateway, body: "")
        let bad = try #require(await #expect(throws: CourierError.self) { try await known.send(TestEndpoint<JSON>()) })
        #expect(bad.detail == "The server answered 502 Bad Gateway")
    }

    @Test func anExpiredSessionNamesItsCauseOnce() async throws {
        let store = CredentialStore(.bearer("old", identity: "u1", refreshToken: "r"))
        let refusing = ClosureTransport { _, _ in ClosureTransport.respond(.unauthorized) }
        let refresh = TokenRefreshMiddleware(store: store) { _ in
            throw CourierError(.sessionExpired, detail: "refresh token revoked")
        }
        let client = ResilienceTests.client(refusing, middlewares: [refresh, CredentialsMiddleware(provider: store)])
        let error = try #require(await #expect(throws: CourierError.self) { try await client.send(ResilienceTests.Call()) })
        #expect(error.kind == .sessionExpired)
        #expect(error.description.components(separatedBy: "refresh token revoked").count == 2, "\(error.description)")
    }
}
