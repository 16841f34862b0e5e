import Courier
import CourierTesting
import Foundation

/// A base URL for clients whose transport never touches the network.
let stubBaseURL = URL(string: "https://api.example.com/v1")!

/// A client over a stub transport answering every request with `body` and `status`.
func stubClient(
    status: HTTPResponse.Status = .ok,
    body: String,
    headers: HTTPFields = [.contentType: "application/json"],
    configure: (inout Client.Configuration) -> Void = { _ in }
) -> (Client, StubTransport) {
    let transport = StubTransport.answering(status, headers: headers, body: body)
    return (Client(baseURL: stubBaseURL, transport: transport, configure: configure), transport)
}

/// A tiny endpoint whose pieces tests set directly.
struct TestEndpoint<Response: Decodable & Sendable>: Endpoint {
    var method: HTTPRequest.Method = .get
    var path: EndpointPath = "/items"
    var parameters: Parameters = .none
    var query: Parameters = .none
    var body: RequestBody? = nil
    var headers: HTTPFields = [:]
    var operationName: String { "TestEndpoint" }
}

struct Item: Codable, Sendable, Hashable {
    var id: Int
    var title: String
}
