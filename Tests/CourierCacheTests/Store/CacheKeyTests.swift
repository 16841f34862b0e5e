import CourierCache
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
