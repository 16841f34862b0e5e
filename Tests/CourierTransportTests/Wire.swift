import Courier
import CourierAsyncHTTPClient
import CourierTestSupport
import CourierTesting
import Foundation
import Testing

/// A transport and the wire it runs over: plain HTTP/1.1, HTTPS over HTTP/1.1, HTTPS over HTTP/2.
/// The conformance suite runs every case over each. URLSession on Linux trusts only the system's
/// roots (not the mock server's test CA), so it runs over plain HTTP/1.1 here.
struct Wire: CaseIterable, CustomTestStringConvertible, Sendable {
    let kind: TransportKind
    let tls: MockTLS?

    static let allCases: [Wire] = {
        var cases = [Wire(kind: .urlSession, tls: nil), Wire(kind: .asyncHTTPClient, tls: nil)]
        cases += [Wire(kind: .asyncHTTPClient, tls: .http1), Wire(kind: .asyncHTTPClient, tls: .http2)]
        #if canImport(Security)
        cases += [Wire(kind: .urlSession, tls: .http1), Wire(kind: .urlSession, tls: .http2)]
        #endif
        return cases
    }()

    /// A transport that trusts the mock server's test CA when the wire is HTTPS.
    func make() throws -> any ClientTransport {
        guard tls != nil else { return kind.make() }
        let trust = ServerTrust.only(roots: [TestCertificates.caPEM])
        switch kind {
        case .urlSession: return try URLSessionTransport(trust: trust)
        case .asyncHTTPClient: return try AsyncHTTPClientTransport(trust: trust)
        }
    }

    var testDescription: String {
        switch tls {
        case nil: "\(kind.rawValue), http/1.1"
        case let tls? where tls.offersHTTP2: "\(kind.rawValue), https h2"
        default: "\(kind.rawValue), https http/1.1"
        }
    }
}

/// A mock server on `wire` and a client for it, shut down after `body`.
func withServer<T>(
    _ wire: Wire,
    middlewares: [any ClientMiddleware] = [],
    configure: (inout Client.Configuration) -> Void = { _ in },
    _ body: (MockServer, Client) async throws -> T
) async throws -> T {
    try await withServer(tls: wire.tls) { server in
        let client = Client(baseURL: server.baseURL, transport: try wire.make(), middlewares: middlewares, configure: configure)
        return try await body(server, client)
    }
}
