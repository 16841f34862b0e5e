@testable import Courier
import Foundation
import Testing

/// An origin is scheme, host and port; its host stays percent-encoded as written, so its base URL
/// names the same origin (decoded, `%23` would be `#` and `3%18` a control character).
@Suite struct OriginTests {
    static let page = URL(string: "http://127.0.0.1:8080/go")!

    @Test(arguments: [("//3%18", "3%18"), ("//%23", "%23"), ("//a%2Fb", "a%2fb")])
    func aPercentEncodedHostStaysEncoded(location: String, host: String) throws {
        let target = try #require(URL(string: location, relativeTo: Self.page)?.absoluteURL)
        let origin = try #require(Origin(target))
        #expect(origin.host == host)
        #expect(origin.url.absoluteString == "http://\(host):80")
        #expect(Origin(origin.url) == origin, "\(origin.url) names another origin")
        #expect(origin != Origin(Self.page))
    }

    @Test func schemeHostAndPortDecide() throws {
        let origin = try #require(Origin(URL(string: "http://API.example.com/a?b=1")!))
        #expect(origin == Origin(URL(string: "http://api.example.com:80/other")!))
        #expect(origin != Origin(URL(string: "https://api.example.com/a")!))
        #expect(origin != Origin(URL(string: "http://api.example.com:8080/a")!))
        #expect(Origin(URL(string: "https://[::1]/x")!)?.url.absoluteString == "https://[::1]:443")
    }

    @Test(arguments: ["ftp://example.com/file", "mailto:someone@example.com", "http:///no-host", "file:///etc/hosts"])
    func onlyHTTPURLsWithAHostHaveAnOrigin(url: String) throws {
        #expect(Origin(try #require(URL(string: url))) == nil)
    }
}
