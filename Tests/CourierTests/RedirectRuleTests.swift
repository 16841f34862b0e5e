import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// The redirect rules that loopback servers can't show (no TLS there): an https → http hop on the
/// same host is a different origin, and its request carries no credentials.
@Suite struct RedirectRuleTests {
    @Test func aDowngradeToHTTPCarriesNoCredentials() async throws {
        let sent = Locked<[HTTPRequest]>([])
        let base = try #require(URL(string: "https://api.example.com"))
        let request = HTTPRequest(
            method: .get, scheme: nil, authority: nil, path: "/go",
            headerFields: [.authorization: "Bearer secret", .cookie: "s=1", .accept: "application/json"]
        )
        let (response, _) = try await RedirectMiddleware().intercept(request, body: nil, baseURL: base, operationID: "go") { request, _, baseURL in
            sent.withLock { $0.append(request) }
            if request.path == "/go" {
                return (HTTPResponse(status: .found, headerFields: [.location: "http://api.example.com/plain"]), nil)
            }
            #expect(baseURL.absoluteString == "http://api.example.com:80")
            return (HTTPResponse(status: .ok), nil)
        }
        #expect(response.status == .ok)
        let hop = try #require(sent.current.last)
        #expect(hop.path == "/plain")
        #expect(hop.headerFields[.authorization] == nil)
        #expect(hop.headerFields[.cookie] == nil)
        #expect(hop.headerFields[.accept] == "application/json")
    }
}
