import Courier
import CourierAsyncHTTPClient
import CourierTesting
import Foundation

/// Every transport Courier ships; each conformance test runs once per transport.
enum TransportKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case urlSession
    case asyncHTTPClient

    func make() -> any ClientTransport {
        switch self {
        case .urlSession: URLSessionTransport()
        case .asyncHTTPClient: AsyncHTTPClientTransport()
        }
    }

    var testDescription: String { rawValue }
}

/// A mock server on 127.0.0.1:0 and a client for it, shut down after `body`. The client's timeout
/// is 300 s unless `configure` sets another: a test that wants a timeout sets it, and no other call
/// fails for a loaded machine (a sanitized build beside others once took 28 s for a 3 MiB upload).
func withServer<T>(
    _ kind: TransportKind,
    configure: (inout Client.Configuration) -> Void = { _ in },
    _ body: (MockServer, Client) async throws -> T
) async throws -> T {
    try await withServer(Wire(kind: kind, tls: nil), configure: { configuration in
        configuration.timeout = .seconds(300)
        configure(&configuration)
    }, body)
}

struct Item: Codable, Sendable, Hashable {
    var id: Int
    var title: String
}

/// An endpoint whose pieces the tests set.
struct Call<Response: Decodable & Sendable>: Endpoint {
    var method: HTTPRequest.Method = .get
    var path: EndpointPath = "/items"
    var parameters: Parameters = .none
    var headers: HTTPFields = [:]
    var timeout: Duration? = nil
    var operationName: String { "Call" }
}

import Testing
