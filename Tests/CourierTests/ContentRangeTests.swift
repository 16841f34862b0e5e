@testable import Courier
import Testing

/// `Content-Range` of a 206 (RFC 9110 §14.4): only well-formed byte ranges are placed in a file.
@Suite struct ContentRangeTests {
    @Test func wellFormedRangesParse() throws {
        let known = try #require(ContentRange("bytes 500-999/1234"))
        #expect((known.first, known.last, known.completeLength, known.count) == (500, 999, 1234, 500))
        let unknown = try #require(ContentRange("bytes 0-0/*"))
        #expect((unknown.first, unknown.last, unknown.completeLength) == (0, 0, nil))
        #expect(ContentRange(" Bytes 1-2/3 ") != nil)
    }

    @Test(arguments: [
        "", "bytes", "bytes */1234", "bytes 5-4/10", "bytes 0-10/10", "bytes -1-5/10", "bytes 1-+5/10", "items 0-1/2",
        "bytes 0-1/2, 3-4", "bytes 0-1 /2", "bytes 0-99999999999999999999/*", "bytes 0-9223372036854775807/*", "bytes 1-2",
    ])
    func malformedRangesAreRefused(value: String) {
        #expect(ContentRange(value) == nil)
    }
}
