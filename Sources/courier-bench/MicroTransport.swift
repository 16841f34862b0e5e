import AsyncHTTPClient
import Courier
import CourierAsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The AsyncHTTPClient transport's own work without a network, beside what raw AsyncHTTPClient
/// code does with the same response: what Courier's transport adds per request.
///
/// The response is nginx's head for the small JSON file with its body already in memory, the case
/// of nearly every small response (the body arrives in the same read as the head).
func transportMicroCases(iterations: Int) throws -> [MicroCase] {
    guard let baseURL = URL(string: "http://127.0.0.1:8080") else { throw BenchError("bad base URL") }
    let transport = AsyncHTTPClientTransport(client: AsyncHTTPClientTransport.sharedClient)
    let body = ByteBuffer(bytes: Fixtures.small)
    let headers = HTTPHeaders([
        ("Server", "nginx/1.22.1"), ("Date", "Sat, 21 Nov 2026 18:00:00 GMT"), ("Content-Type", "application/json"),
        ("Content-Length", "\(Fixtures.small.count)"), ("Last-Modified", "Sat, 21 Nov 2026 17:00:00 GMT"),
        ("Connection", "keep-alive"), ("ETag", "\"6560e0f0-ec\""), ("Accept-Ranges", "bytes"),
    ])
    func response() -> HTTPClientResponse {
        HTTPClientResponse(version: .http1_1, status: .ok, headers: headers, body: .bytes(body))
    }
    var request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/small.json?n=1")
    request.headerFields[.accept] = "application/json"
    let base = baseURL.absoluteString
    return [
        MicroCase(name: "raw AHC: request for a URL string", iterations: iterations) {
            var outgoing = HTTPClientRequest(url: base + "/small.json?n=1")
            outgoing.headers.add(name: "Accept", value: "application/json")
            withExtendedLifetime(outgoing) {}
        },
        MicroCase(name: "AHC transport: HTTPRequest → HTTPClientRequest", iterations: iterations) {
            withExtendedLifetime(transport.makeRequest(request, body: nil, baseURL: baseURL)) {}
        },
        MicroCase(name: "raw AHC: collect the body into Data", iterations: iterations) {
            let response = response()
            guard response.status == .ok else { throw BenchError("status") }
            _ = Data(try await response.body.collect(upTo: 16 << 20).readableBytesView)
        },
        MicroCase(name: "AHC transport: head + body within deadline", iterations: iterations) {
            _ = try await AsyncHTTPClientTransport.read(response(), deadline: .now() + .seconds(60), timeout: .seconds(60), limit: 16 << 20)
        },
    ]
}

/// What the transport adds over raw AsyncHTTPClient code, per request, from the cases above.
func transportMicroLines(_ results: [MicroResult]) -> [String] {
    func find(_ prefix: String) -> MicroResult? { results.first { $0.name.hasPrefix(prefix) } }
    guard let rawRequest = find("raw AHC: request"), let request = find("AHC transport: HTTPRequest"),
        let rawBody = find("raw AHC: collect"), let body = find("AHC transport: head + body")
    else { return [] }
    let nanoseconds = request.nanosecondsPerOperation - rawRequest.nanosecondsPerOperation
        + body.nanosecondsPerOperation - rawBody.nanosecondsPerOperation
    let allocations = request.allocationsPerOperation - rawRequest.allocationsPerOperation
        + body.allocationsPerOperation - rawBody.allocationsPerOperation
    return [String(format: "AHC transport over raw AHC code, without the network: %+.0f ns CPU, %+.1f allocations per request", nanoseconds, allocations)]
}
