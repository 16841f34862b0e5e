import Courier
import CourierTesting
import Foundation
import HTTPTypes
import Testing

/// Types that hold a secret print, interpolate, reflect and `dump` with it replaced.
@Suite struct SecretDescriptionTests {
    /// Every way Swift turns a value into text, alone and inside other values.
    private func texts(of value: Any) -> [String] {
        var dumped = ""
        dump(value, to: &dumped)
        var dumpedInside = ""
        dump([value], to: &dumpedInside)
        return [
            String(describing: value), String(reflecting: value), "\(value)", dumped, dumpedInside,
            String(describing: [value]), String(describing: Optional(value) as Any), String(describing: (1, value)),
        ]
    }

    private func expectNoSecret(in value: Any, _ comment: Comment) {
        for text in texts(of: value) {
            #expect(!text.contains("SECRET"), "\(comment): \(text)")
        }
    }

    @Test func credentialsHideTheirTokens() {
        let bearer = Credentials.bearer("SECRET-ACCESS", identity: "user-42", refreshToken: "SECRET-REFRESH")
        expectNoSecret(in: bearer, "bearer")
        #expect(String(describing: bearer).contains("user-42"), "who is shown")
        #expect(String(describing: bearer).contains("Authorization"), "which field is shown")
        expectNoSecret(in: Credentials.authToken("SECRET-AUTH", userID: "user-42"), "authToken")
        expectNoSecret(in: Optional(bearer) as Any, "optional")
    }

    @Test func aCredentialStoreHidesItsTokens() {
        let store = CredentialStore(.bearer("SECRET-ACCESS", identity: "user-42", refreshToken: "SECRET-REFRESH"))
        expectNoSecret(in: store, "store")
        #expect(String(describing: store).contains("user-42"))
        store.signOut()
        #expect(String(describing: store) == "CredentialStore(signed out)")
    }

    @Test func aClientIdentityHidesItsKey() {
        let identity = ClientIdentity(certificateChainPEM: ["-----BEGIN CERTIFICATE-----public"], privateKeyPEM: "-----BEGIN PRIVATE KEY-----SECRET")
        expectNoSecret(in: identity, "identity")
        var trust = ServerTrust.system
        trust.clientIdentity = identity
        expectNoSecret(in: trust, "trust")
    }

    /// A client's configuration (and so the client) hides secret default header fields and common query items.
    @Test func aClientHidesItsSecretDefaults() throws {
        var configuration = Client.Configuration()
        configuration.defaultHeaders[try #require(HTTPField.Name("X-Api-Key"))] = "SECRET-HEADER"
        configuration.commonQuery = [QueryItem(name: "api_key", value: "SECRET-QUERY"), QueryItem(name: "app", value: "shown")]
        expectNoSecret(in: configuration, "configuration")
        #expect(String(describing: configuration).contains("shown"))
        let store = CredentialStore(.bearer("SECRET-ACCESS", identity: "user-42"))
        let client = Client(baseURL: try #require(URL(string: "https://api.example.com")), middlewares: [CredentialsMiddleware(provider: store)]) {
            $0 = configuration
        }
        var dumped = ""
        dump(client, to: &dumped)
        #expect(!dumped.contains("SECRET"), "\(dumped)")
    }

    /// Free text names a request by its target as often as by its URL: both lose their secret values.
    @Test func secretQueryValuesInTextAreHiddenInURLsAndTargets() {
        let redaction = Redaction()
        let text = "GET /items?token=SECRET-1&page=2 failed, then https://api.example.com/x?api_key=SECRET-2; why? (\"/a?code=SECRET-3\")"
        let redacted = redaction.redact(text: text)
        #expect(!redacted.contains("SECRET"), "\(redacted)")
        #expect(redacted.contains("/items?token=REDACTED&page=2"))
        #expect(redacted.contains("why?"))
    }

    /// A response prints its header fields with the secret ones replaced: a session cookie the
    /// server set, or a field only the client's list names.
    @Test func aResponseHidesItsSecretHeaderFields() async throws {
        let server = try await MockServer.start()
        defer { Task { try? await server.shutdown() } }
        server.route("GET", "/login", respond: .json(#"{"ok":true}"#, headers: [
            MockHeader("Set-Cookie", "session=SECRET-COOKIE; HttpOnly"), MockHeader("X-Session", "SECRET-SESSION"),
            MockHeader("X-Shown", "shown"),
        ]))
        struct Login: Endpoint {
            typealias Response = JSON
            var path: EndpointPath { "/login" }
        }
        let client = Client(baseURL: server.baseURL) { $0.redaction.headerNames.insert("x-session") }
        let response = try await client.response(for: Login())
        #expect(response.head.headerFields[try #require(HTTPField.Name("X-Session"))] == "SECRET-SESSION", "the value itself is the app's")
        expectNoSecret(in: response, "response")
        #expect(String(describing: response).contains("shown"))
        #expect(String(describing: response).contains("Set-Cookie"), "which field is shown")
    }
}
