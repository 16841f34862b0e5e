import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Partial Courier stacks for the small-GET scenarios (`--breakdown`): where between the raw
/// transport and the full client the overhead comes from, measured in the same run.
///
/// - `AHC + Courier body read`: raw AsyncHTTPClient code whose response is read by the AHC
///   transport's own step (head conversion, body task under the deadline, size limit).
/// - `AHC transport alone`: the whole ``AsyncHTTPClientTransport`` (request conversion too) called
///   directly inside a request context, without a ``Client``.
/// - `URLSession transport alone`: the same for ``URLSessionTransport``.
struct Breakdown {
    let bodyRead: Subject
    let ahcTransport: Subject
    let urlSessionTransport: Subject

    init(http: HTTPClient, session: URLSession, baseURL: URL) {
        bodyRead = Self.bodyRead(http: http, baseURL: baseURL)
        ahcTransport = Self.ahcTransport(http: http, baseURL: baseURL)
        urlSessionTransport = Self.transportAlone(
            "URLSession transport alone", baseline: "raw URLSession", URLSessionTransport(), baseURL
        )
    }

    /// Raw AsyncHTTPClient code whose response is read by the AHC transport's own step.
    static func bodyRead(http: HTTPClient, baseURL: URL) -> Subject {
        let base = baseURL.absoluteString
        let decoder = JSONDecoder()
        return subject("AHC + Courier body read", baseline: "raw AHC") { n in
            var request = HTTPClientRequest(url: base + "/small.json?n=\(n)")
            request.headers.add(name: "Accept", value: "application/json")
            let deadline = NIODeadline.now() + .seconds(60)
            let response = try await http.execute(request, deadline: deadline)
            let (_, data) = try await AsyncHTTPClientTransport.read(response, deadline: deadline, timeout: .seconds(60), limit: 16 << 20)
            _ = try decoder.decode(SmallUser.self, from: data)
        }
    }

    /// Courier's AsyncHTTPClient transport called directly, without a ``Client``.
    static func ahcTransport(http: HTTPClient, baseURL: URL) -> Subject {
        transportAlone("AHC transport alone", baseline: "raw AHC", AsyncHTTPClientTransport(client: http), baseURL)
    }

    /// A transport's `exchange` with what a ``Client`` would give it: an `HTTPRequest` and a context.
    private static func transportAlone(_ name: String, baseline: String, _ transport: some BufferingTransport, _ baseURL: URL) -> Subject {
        let decoder = JSONDecoder()
        return subject(name, baseline: baseline) { n in
            let context = RequestContext(endpoint: "SmallEndpoint", cachePolicy: .withoutCache, isIdempotent: true, timeout: .seconds(60))
            let head = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/small.json?n=\(n)", headerFields: [.accept: "application/json"])
            try await RequestContext.$current.withValue(context) {
                let (response, data) = try await transport.exchange(head, body: nil, baseURL: baseURL, operationID: "SmallEndpoint")
                guard response.status == .ok else { throw BenchError("\(name): status \(response.status.code)") }
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
