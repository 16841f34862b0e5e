import Courier
import CourierTesting
import Foundation
import Testing

/// A pooled connection that the server closes just as a request goes out: an idempotent request is
/// sent once more on a new connection, without counting as a retry; others fail as they did.
@Suite struct StaleConnectionTests {
    @Test(arguments: TransportKind.allCases)
    func anIdempotentRequestIsResentOnANewConnection(kind: TransportKind) async throws {
        try await withServer(kind) { server, client in
            server.route("GET", "/items", script: [
                .json("{}"),
                MockResponse.json("{}").with(fault: .closeWithoutResponse),
                .json(#"{"again":true}"#),
            ])
            _ = try await client.send(Call<JSON>())
            let response = try await client.response(for: Call<JSON>())
            #expect(response.value["again"]?.bool == true)
            #expect(response.attempts == 1, "the resend is not a retry")
            #expect(server.requestCount("/items") == 3)
            #expect(server.connectionsOpened == 2)
        }
    }

    /// Over AsyncHTTPClient only: libcurl under Linux's URLSession resends any request that got no
    /// byte back on a reused connection, POST included, before Courier sees anything.
    @Test func aPostIsNotResent() async throws {
        try await withServer(.asyncHTTPClient) { server, client in
            server.route("POST", "/items", script: [
                .json("{}"),
                MockResponse.json("{}").with(fault: .closeWithoutResponse),
                .json("{}"),
            ])
            _ = try await client.send(Call<JSON>(method: .post))
            let error = try #require(await #expect(throws: CourierError.self) { try await client.send(Call<JSON>(method: .post)) })
            #expect(error.kind == .connectionLost)
            #expect(server.requestCount("/items") == 2)
        }
    }
}
