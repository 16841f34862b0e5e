import AsyncHTTPClient
import Courier
@testable import CourierAsyncHTTPClient
import CourierTesting
import Foundation
import Testing

/// Server trust over a real HTTPS server (the test CA's certificates): roots, pins with backups,
/// expired and misnamed certificates, mutual TLS; every failure a ``CourierError/Kind/serverTrust``
/// with its evidence, never retried.
@Suite struct ServerTrustTests {
    static let testCA = ServerTrust.only(roots: [TestCertificates.caPEM])

    private struct Ping: Endpoint {
        typealias Response = JSON
        var path: EndpointPath { "/ping" }
    }

    /// A server serving `tls`, and a client trusting as `trust` says over AsyncHTTPClient.
    private func call(
        _ tls: MockTLS, trust: ServerTrust, host: String = "127.0.0.1", retries: Bool = false
    ) async throws -> (Result<JSON, CourierError>, MockServer) {
        let server = try await MockServer.start(host: host, tls: tls)
        server.route("GET", "/ping", respond: .json(#"{"ok":true}"#))
        let transport = try AsyncHTTPClientTransport(trust: trust)
        let middlewares: [any ClientMiddleware] = retries ? [RetryMiddleware(policy: RetryPolicy(baseDelay: .milliseconds(1)))] : []
        let client = Client(baseURL: server.baseURL, transport: transport, middlewares: middlewares)
        let result: Result<JSON, CourierError>
        do { result = .success(try await client.send(Ping())) } catch { result = .failure(error) }
        try await server.shutdown()
        return (result, server)
    }

    @Test(arguments: [MockTLS.http1, MockTLS.http2])
    func theTestCAIsTrustedWhenTheClientTrustsIt(tls: MockTLS) async throws {
        let (result, server) = try await call(tls, trust: Self.testCA)
        #expect(try result.get()["ok"]?.bool == true)
        #expect(server.baseURL.scheme == "https")
    }

    @Test func aServerTheSystemDoesntTrustFailsWithServerTrust() async throws {
        let (result, _) = try await call(.http1, trust: .system, retries: true)
        guard case .failure(let error) = result else { Issue.record("an untrusted server answered"); return }
        #expect(error.kind == .serverTrust, "\(error)")
        #expect(error.family == .other)
        #expect(error.detail.contains("127.0.0.1"))
    }

    @Test func aSelfSignedCertificateIsNotTrusted() async throws {
        let tls = MockTLS(offersHTTP2: false, certificateChainPEM: [TestCertificates.selfSignedLeafPEM])
        let (result, _) = try await call(tls, trust: Self.testCA)
        #expect(result.failureKind == .serverTrust)
    }

    @Test func anExpiredCertificateIsNotTrusted() async throws {
        let tls = MockTLS(offersHTTP2: false, certificateChainPEM: [TestCertificates.expiredLeafPEM])
        let (result, _) = try await call(tls, trust: Self.testCA)
        #expect(result.failureKind == .serverTrust)
    }

    @Test func aCertificateForAnotherHostIsNotTrusted() async throws {
        let tls = MockTLS(offersHTTP2: false, certificateChainPEM: [TestCertificates.wrongHostLeafPEM])
        let (result, _) = try await call(tls, trust: Self.testCA)
        #expect(result.failureKind == .serverTrust, "\(result)")
    }

    @Test(arguments: [MockTLS.http1, MockTLS.http2])
    func aMatchingPinOrABackupPinIsAccepted(tls: MockTLS) async throws {
        var trust = Self.testCA
        trust.pin("127.0.0.1", to: [tls.leafPin])
        #expect(try await call(tls, trust: trust).0.get()["ok"]?.bool == true)

        var backup = Self.testCA
        backup.pin("127.0.0.1", to: ["sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", tls.leafPin])
        #expect(try await call(tls, trust: backup).0.get()["ok"]?.bool == true)
    }

    /// A wrong pin fails with the pins expected and shown, and is never retried.
    @Test(arguments: [MockTLS.http1, MockTLS.http2])
    func aWrongPinFailsWithTheChainsPinsAndIsNotRetried(tls: MockTLS) async throws {
        var trust = Self.testCA
        let wrong = "sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
        trust.pin("127.0.0.1", to: [wrong])
        let (result, server) = try await call(tls, trust: trust, retries: true)
        guard case .failure(let error) = result else { Issue.record("a wrong pin was accepted"); return }
        #expect(error.kind == .serverTrust)
        #expect(error.detail.contains(wrong))
        #expect(error.detail.contains(tls.leafPin), "the pin the server showed: \(error.detail)")
        #expect(server.recordedRequests.isEmpty, "no request went over a connection that failed its pins")
        #expect(server.connectionsOpened == 1, "not retried")
    }

    /// A pin holds however the host is spelled where it is declared: a pin for `LocalHost.` holds
    /// for a connection to `localhost`, over a socket.
    @Test func aPinDeclaredWithAnotherSpellingHoldsForTheHost() async throws {
        let wrong = "sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
        let server = try await MockServer.start(tls: .http1)
        defer { Task { try? await server.shutdown() } }
        server.route("GET", "/ping", respond: .json(#"{"ok":true}"#))
        let port = try #require(server.baseURL.port)
        for declared in ["LocalHost.", "LOCALHOST", "localhost."] {
            var trust = Self.testCA
            trust.pin(declared, to: [wrong])
            let url = try #require(URL(string: "https://localhost:\(port)"))
            let client = Client(baseURL: url, transport: try AsyncHTTPClientTransport(trust: trust))
            let error = await #expect(throws: CourierError.self, "pinned \(declared)") { try await client.send(Ping()) }
            #expect(error?.kind == .serverTrust, "\(declared): \(error?.detail ?? "")")
            #expect(error?.detail.contains("matches its pins") == true, "\(declared): \(error?.detail ?? "")")
        }
        #expect(server.recordedRequests.isEmpty, "no request went over a connection that failed its pins")
    }

    /// Where a connection looks its pins up, `localhost.` (a fully qualified name) gets `localhost`'s
    /// pinned client. Not over a socket: SwiftNIO's resolver doesn't resolve `localhost.` on this machine.
    @Test func aConnectionToTheHostSpelledAnotherWayUsesItsPins() throws {
        var trust = Self.testCA
        trust.pin("localhost", to: ["sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="])
        let clients = try TrustedClients(trust: trust, configuration: HTTPClient.Configuration())
        let pinned = clients.client(for: "localhost")
        #expect(pinned !== clients.main)
        for spelling in ["localhost.", "LocalHost", "LOCALHOST."] {
            #expect(clients.client(for: spelling) === pinned, "\(spelling)")
        }
        #expect(clients.client(for: "127.0.0.1") === clients.main)
    }

    @Test func hostNamesAreNormalizedForPins() {
        #expect(ServerTrust.normalizedHost("API.Example.COM.") == "api.example.com")
        #expect(ServerTrust.normalizedHost("Bücher.Example.") == "xn--bcher-kva.example")
        #expect(ServerTrust.normalizedHost("127.0.0.1") == "127.0.0.1")
        var trust = ServerTrust.system
        trust.pin("bücher.example.", to: ["sha256/x"])
        #expect(trust.pins(for: "XN--BCHER-KVA.EXAMPLE") == ["sha256/x"])
        #expect(trust.pins(for: "bücher.example") == ["sha256/x"])
        #expect(trust.pins(for: "other.example") == nil)
    }

    /// A pin for one host leaves the others alone.
    @Test func aPinForAnotherHostChangesNothingHere() async throws {
        var trust = Self.testCA
        trust.pin("api.example.com", to: ["sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="])
        #expect(try await call(.http1, trust: trust).0.get()["ok"]?.bool == true)
    }

    @Test func mutualTLSIsAcceptedWithTheClientsCertificateAndRefusedWithout() async throws {
        var tls = MockTLS.http1
        tls.requiresClientCertificate = true
        var trust = Self.testCA
        trust.clientIdentity = ClientIdentity(certificateChainPEM: [TestCertificates.clientPEM], privateKeyPEM: TestCertificates.clientKeyPEM)
        #expect(try await call(tls, trust: trust).0.get()["ok"]?.bool == true)

        let (refused, server) = try await call(tls, trust: Self.testCA)
        #expect(refused.failureKind != nil)
        #expect(server.recordedRequests.isEmpty)
    }

    @Test func theCertificatesPinIsTheSPKIHash() throws {
        // `openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`
        let pin = try ServerTrust.pin(ofCertificatePEM: TestCertificates.leafPEM)
        #expect(pin.hasPrefix("sha256/") && pin.count == 51)
        #expect(try ServerTrust.pin(ofCertificatePEM: TestCertificates.expiredLeafPEM) == pin, "same key, same pin")
        #expect(try ServerTrust.pin(ofCertificatePEM: TestCertificates.caPEM) != pin)
        #expect(throws: CourierError.self) { try ServerTrust.pin(ofCertificatePEM: "not a certificate") }
    }

    /// URLSession on Linux verifies with the system's roots only: other trust is refused when the
    /// transport is made, and the test CA's server is not trusted.
    @Test func urlSessionOnLinuxRefusesWhatItCantHonour() async throws {
        #if canImport(FoundationNetworking)
        #expect(throws: CourierError.self) { _ = try URLSessionTransport(trust: Self.testCA) }
        let server = try await MockServer.start(tls: .http1)
        defer { Task { try? await server.shutdown() } }
        server.route("GET", "/ping", respond: .json("{}"))
        let client = Client(baseURL: server.baseURL, transport: try URLSessionTransport(trust: .system))
        let error = await #expect(throws: CourierError.self) { _ = try await client.send(Ping()) }
        #expect(error?.kind == .serverTrust || error?.kind == .transport, "\(String(describing: error))")
        #endif
    }
}

extension Result where Failure == CourierError {
    var failureKind: CourierError.Kind? {
        if case .failure(let error) = self { error.kind } else { nil }
    }
}
