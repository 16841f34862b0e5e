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
/// - `raw AHC, deadline for the body`: raw AsyncHTTPClient code through the API whose deadline
///   bounds the body too (`HTTPClient.Request`, a future, the response gathered by AHC's own
///   accumulator), which is the API Courier's transport has to use; its cost over `raw AHC` (whose
///   async API bounds only the head) is the transport API's, not Courier's.
/// - `… + swift-http-types heads`: the same, its request head built as an `HTTPRequest` and its
///   response head converted to an `HTTPResponse`, as every openapi-runtime `ClientTransport` does
///   (swift-http-types keeps each field's value as its own byte array).
/// - `AHC transport alone`: the whole ``AsyncHTTPClientTransport`` (request conversion too) called
///   directly inside a request context, without a ``Client``.
/// - `URLSession transport alone`: the same for ``URLSessionTransport``.
struct Breakdown {
    let rawAHCBoundedBody: Subject
    let rawAHCWithHTTPTypes: Subject
    let ahcTransport: Subject
    let urlSessionTransport: Subject

    init(http: HTTPClient, session: URLSession, baseURL: URL) {
        rawAHCBoundedBody = Self.rawAHCBoundedBody(http: http, baseURL: baseURL)
        rawAHCWithHTTPTypes = Self.rawAHCWithHTTPTypes(http: http, baseURL: baseURL)
        ahcTransport = Self.ahcTransport(http: http, baseURL: baseURL)
        urlSessionTransport = Self.transportAlone(
            "URLSession transport alone", baseline: "raw URLSession", URLSessionTransport(), baseURL
        )
    }

    /// Raw AsyncHTTPClient code whose one deadline covers head and body: what Courier's transport builds on.
    static func rawAHCBoundedBody(http: HTTPClient, baseURL: URL) -> Subject {
        let decoder = JSONDecoder()
        let base = baseURL.absoluteString
        return subject("raw AHC, deadline for the body", baseline: "raw AHC") { n in
            var headers = HTTPHeaders()
            headers.add(name: "Accept", value: "application/json")
            let request = try HTTPClient.Request(url: base + "/small.json?n=\(n)", method: .GET, headers: headers)
            let response = try await http.execute(request: request, deadline: .now() + .seconds(60)).get()
            guard response.status == .ok, let body = response.body else { throw BenchError("raw AHC (body deadline): status \(response.status.code)") }
            _ = try decoder.decode(SmallUser.self, from: Data(body.readableBytesView))
        }
    }

    /// The body-deadline raw code with its heads as swift-http-types values, converted both ways.
    static func rawAHCWithHTTPTypes(http: HTTPClient, baseURL: URL) -> Subject {
        let decoder = JSONDecoder()
        let base = baseURL.absoluteString
        return subject("… + swift-http-types heads", baseline: "raw AHC") { n in
            let head = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/small.json?n=\(n)", headerFields: [.accept: "application/json"])
            var headers = HTTPHeaders()
            for field in head.headerFields { headers.add(name: field.name.rawName, value: field.value) }
            let request = try HTTPClient.Request(url: base + (head.path ?? "/"), method: HTTPMethod(rawValue: head.method.rawValue), headers: headers)
            let response = try await http.execute(request: request, deadline: .now() + .seconds(60)).get()
            var fields = HTTPFields()
            for (name, value) in response.headers {
                if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
            }
            let converted = HTTPResponse(status: .init(code: Int(response.status.code)), headerFields: fields)
            guard converted.status == .ok, let body = response.body else { throw BenchError("raw AHC (http-types): status \(converted.status.code)") }
            _ = try decoder.decode(SmallUser.self, from: Data(body.readableBytesView))
        }
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
