@testable import CourierCache
import Foundation
import HTTPTypes
import Testing

@Suite struct CacheKeyTests {
    @Test(arguments: [
        ("HTTPS://API.Example.COM:443/Items?b=2&a=1", "https://api.example.com/Items?b=2&a=1"),
        ("http://example.com:80", "http://example.com/"),
        ("http://example.com:8080/x", "http://example.com:8080/x"),
        ("https://example.com/a%20b?q=%2F#fragment", "https://example.com/a%20b?q=%2F"),
        ("https://example.com/path?", "https://example.com/path?"),
    ])
    func normalisesURLs(input: String, expected: String) throws {
        let url = try #require(URL(string: input))
        #expect(CacheKey.normalizedURL(url) == expected)
        // The remembered string form gives the same answer, the first time and the next.
        #expect(CacheKey.normalizedURL(string: input) == expected)
        #expect(CacheKey.normalizedURL(string: input) == expected)
    }

    /// The shortcut for strings already in normal form agrees with the full normalisation.
    @Test(arguments: [
        "https://api.example.com/items?page=1", "http://127.0.0.1:8080/feed", "http://example.com/",
        "HTTPS://example.com/x", "https://Example.com/x", "https://example.com:443/x", "http://example.com:80/x",
        "http://example.com", "https://example.com/a%20b", "https://example.com/a#f", "https://user@example.com/x",
        "https://example.com:08/x", "http://example.com:/x", "https://example.com/a b", "ftp://example.com/x",
        "https://example.com/p?q=a,b;c=(d)*e!f$g'h~i_j@k:l",
    ])
    func theShortcutAgreesWithTheFullNormalisation(input: String) throws {
        let full = URL(string: input).map(CacheKey.normalizedURL)
        if CacheKey.isNormalized(input) { #expect(full == input) }
        #expect(CacheKey.normalizedURL(string: input) == full)
    }

    @Test func commonURLsTakeTheShortcut() {
        #expect(CacheKey.isNormalized("http://127.0.0.1:8080/cached.json?k=17"))
        #expect(CacheKey.isNormalized("https://api.example.com/users/42/friends"))
        #expect(!CacheKey.isNormalized("https://API.example.com/users"))
    }

    @Test func aStringThatIsNoURLHasNoKey() {
        #expect(CacheKey.normalizedURL(string: "http://exa mple.com/") == nil)
        #expect(CacheKey.normalizedURL(string: "") == nil)
    }

    @Test func queryIsPartOfTheKey() throws {
        let first = CacheKey(url: try #require(URL(string: "https://example.com/items?page=1")))
        let second = CacheKey(url: try #require(URL(string: "https://example.com/items?page=2")))
        #expect(first != second)
    }

    @Test func keyFromRequest() throws {
        let request = HTTPRequest(method: .get, scheme: "https", authority: "API.example.com", path: "/a?x=1")
        let key = try #require(CacheKey(request: request, partition: "user-1"))
        #expect(key == CacheKey(method: "GET", normalizedURL: "https://api.example.com/a?x=1", partition: "user-1"))
        let relative = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/a")
        #expect(CacheKey(request: relative) == nil)
    }
}
