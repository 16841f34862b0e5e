import Courier
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// The redirect rules that loopback servers can't show (no TLS there): an https → http hop is
/// refused by default; allowed, it is a different origin whose request carries no credentials.
@Suite struct RedirectRuleTests {
    /// An https call is never silently downgraded: the redirect to http fails, and the plain-http
    /// server is never asked.
    @Test func aDowngradeToHTTPIsRefusedByDefault() async throws {
        let sent = Locked<[URL]>([])
        let base = try #require(URL(string: "https://api.example.com"))
        let request = HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/pay", headerFields: [:])
        let error = try #require(await #expect(throws: CourierError.self) {
            _ = try await RedirectMiddleware().intercept(request, body: HTTPBody("card=4111"), baseURL: base, operationID: "pay") { _, _, baseURL in
                sent.withLock { $0.append(baseURL) }
                return (HTTPResponse(status: .temporaryRedirect, headerFields: [.location: "http://elsewhere.example/pay?token=t-9"]), nil)
            }
        })
        #expect(error.kind == .redirect)
        #expect(error.detail.contains("from https to http"))
        #expect(!String(describing: error).contains("t-9"))
        #expect(sent.current == [base], "only the https server was asked")
    }

    /// Allowed, a downgrade still never carries a request body.
    @Test func anAllowedDowngradeNeverCarriesABody() async throws {
        let base = try #require(URL(string: "https://api.example.com"))
        let request = HTTPRequest(method: .post, scheme: nil, authority: nil, path: "/pay", headerFields: [:])
        let redirects = RedirectMiddleware(allowsInsecureRedirects: true)
        let error = try #require(await #expect(throws: CourierError.self) {
            _ = try await redirects.intercept(request, body: HTTPBody("card=4111"), baseURL: base, operationID: "pay") { _, _, _ in
                (HTTPResponse(status: .temporaryRedirect, headerFields: [.location: "http://elsewhere.example/pay"]), nil)
            }
        })
        #expect(error.detail.contains("would send the request body from https to http"))
    }

    @Test func aDowngradeToHTTPCarriesNoCredentials() async throws {
        let sent = Locked<[HTTPRequest]>([])
        let base = try #require(URL(string: "https://api.example.com"))
        let request = HTTPRequest(
            method: .get, scheme: nil, authority: nil, path: "/go",
            headerFields: [.authorization: "Bearer secret", .cookie: "s=1", .accept: "application/json"]
        )
        let redirects = RedirectMiddleware(allowsInsecureRedirects: true)
        let (response, _) = try await redirects.intercept(request, body: nil, baseURL: base, operationID: "go") { request, _, baseURL in
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
    /// A host written percent-encoded (`//%23`) is another origin, reached at a base URL that keeps
    /// it encoded: decoded it would be `#`, and the hop would go to a URL with no host at all.
    @Test(arguments: [("//%23", "http://%23:80"), ("//3%18", "http://3%18:80")])
    func aPercentEncodedHostIsAnotherOriginKeptEncoded(location: String, base: String) async throws {
        let hops = Locked<[(HTTPRequest, URL)]>([])
        let start = try #require(URL(string: "http://127.0.0.1:8080"))
        let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/go", headerFields: [.authorization: "Bearer secret"])
        let (response, _) = try await RedirectMiddleware().intercept(request, body: nil, baseURL: start, operationID: "go") { request, _, baseURL in
            hops.withLock { $0.append((request, baseURL)) }
            if request.path == "/go" { return (HTTPResponse(status: .found, headerFields: [.location: location]), nil) }
            return (HTTPResponse(status: .ok), nil)
        }
        #expect(response.status == .ok)
        let (hop, baseURL) = try #require(hops.current.last)
        #expect(hops.current.count == 2)
        #expect(baseURL.absoluteString == base)
        #expect(hop.path == "/")
        #expect(hop.headerFields[.authorization] == nil)
    }

    /// In a generated client (no ``RequestContext``), the credentials middleware behind the redirect
    /// middleware adds nothing to a hop to another origin, nor to the hops after it, and the hop
    /// back home gets them again only in a new call.
    @Test func aCredentialsMiddlewareBehindItAddsNothingOnAnotherOrigin() async throws {
        let sent = Locked<[(HTTPRequest, URL)]>([])
        let base = try #require(URL(string: "https://api.example.com"))
        let credentials = CredentialsMiddleware(provider: CredentialStore(.bearer("s3cr3t", identity: "u")))
        let request = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/go", headerFields: [:])
        let (response, _) = try await RedirectMiddleware().intercept(request, body: nil, baseURL: base, operationID: "go") {
            request, body, baseURL in
            try await credentials.intercept(request, body: body, baseURL: baseURL, operationID: "go") { request, _, baseURL in
                sent.withLock { $0.append((request, baseURL)) }
                switch request.path {
                case "/go": return (HTTPResponse(status: .found, headerFields: [.location: "/here"]), nil)
                case "/here": return (HTTPResponse(status: .found, headerFields: [.location: "https://cdn.example.net/away"]), nil)
                case "/away": return (HTTPResponse(status: .found, headerFields: [.location: "/further"]), nil)
                default: return (HTTPResponse(status: .ok), nil)
                }
            }
        }
        #expect(response.status == .ok)
        let hops = sent.current
        #expect(hops.map(\.0.path) == ["/go", "/here", "/away", "/further"])
        #expect(hops.map { $0.0.headerFields[.authorization] } == ["Bearer s3cr3t", "Bearer s3cr3t", nil, nil])
        #expect(hops.last?.1.host == "cdn.example.net")
        #expect(RequestContext.current == nil, "nothing is left behind")
    }
}
