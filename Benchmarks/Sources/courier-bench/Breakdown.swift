import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import OpenAPIRuntime
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Partial Courier stacks for the small-GET scenarios (`--breakdown`): where between the raw
/// transport and the full client the overhead comes from, measured in the same run.
///
/// - `AHC transport alone`: the whole ``AsyncHTTPClientTransport`` (request conversion too) called
///   directly inside a request context, without a ``Client``.
/// - `URLSession transport alone`: the same for ``URLSessionTransport``.
struct Breakdown {
    let ahcTransport: Subject
    let urlSessionTransport: Subject

    init(http: HTTPClient, session: URLSession, baseURL: URL) {
        ahcTransport = Self.ahcTransport(http: http, baseURL: baseURL)
        urlSessionTransport = Self.transportAlone(
            "URLSession transport alone", baseline: "raw URLSession", URLSessionTransport(), baseURL
        )
    }

    /// Courier's AsyncHTTPClient transport called directly, without a ``Client``.
    static func ahcTransport(http: HTTPClient, baseURL: URL) -> Subject {
        transportAlone("AHC transport alone", baseline: "raw AHC", AsyncHTTPClientTransport(client: http), baseURL)
    }

    /// A transport's `send` with what a ``Client`` would give it (an `HTTPRequest` and a context), its body gathered.
    private static func transportAlone(_ name: String, baseline: String, _ transport: some ClientTransport, _ baseURL: URL) -> Subject {
        let decoder = JSONDecoder()
        return subject(name, baseline: baseline) { n in
            let context = RequestContext(endpoint: "SmallEndpoint", cachePolicy: .withoutCache, isIdempotent: true, timeout: .seconds(60))
            let head = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/small.json?n=\(n)", headerFields: [.accept: "application/json"])
            try await RequestContext.$current.withValue(context) {
                let (response, body) = try await transport.send(head, body: nil, baseURL: baseURL, operationID: "SmallEndpoint")
                guard response.status == .ok, let body else { throw BenchError("\(name): status \(response.status.code)") }
                let data = try await Data(collecting: body, upTo: 16 << 20)
                _ = try decoder.decode(SmallUser.self, from: data)
            }
        }
    }

    /// A subject that only takes part in the small-GET scenarios.
    private static func subject(_ name: String, baseline: String, getSmall: @escaping @Sendable (Int) async throws -> Void) -> Subject {
        let elsewhere: @Sendable () async throws -> Void = { throw BenchError("\(name) runs only in the small-GET scenarios") }
        return Subject(
            name: name, baseline: baseline, getSmall: getSmall, getLarge: elsewhere, post: elsewhere, getCached: elsewhere,
            getCachedBytes: elsewhere
        )
    }
}
