@testable import CourierCache
import Testing

/// Parsing of a `Range` request header (RFC 9110 §14.1.1) and its resolution against a length.
@Suite struct ByteRangeSpecTests {
    static let valid: [(value: String, spec: ByteRangeSpec)] = [
        ("bytes=10-19", .from(first: 10, last: 19)), ("bytes=10-", .from(first: 10, last: nil)),
        ("bytes=-5", .suffix(length: 5)), ("bytes=0-0", .from(first: 0, last: 0)), ("BYTES=1-2", .from(first: 1, last: 2)),
        ("bytes=-0", .suffix(length: 0)), ("bytes=9223372036854775806-", .from(first: 9_223_372_036_854_775_806, last: nil)),
    ]

    @Test(arguments: valid)
    func oneByteRangeParses(value: (value: String, spec: ByteRangeSpec)) {
        #expect(ByteRangeSpec(value.value) == value.spec)
    }

    @Test(arguments: [
        "", "bytes", "bytes=", "bytes=-", "bytes=5-2", "bytes=abc", "bytes=1-abc", "bytes=0-1,5-6", "bytes=0-1, 5-6",
        "items=0-1", " bytes=0-1", "bytes= 0-1", "bytes=0 -1", "bytes=0-1 ", "bytes=+1-2", "bytes=-+1", "bytes=1--2",
        "bytes=--2", "bytes=99999999999999999999-", "bytes=1-99999999999999999999", "bytes=-99999999999999999999",
        "bytes=9223372036854775808-", "bytes=\u{0661}-\u{0662}", "bytes=0x10-0x20", "bytes=1.5-2", "bytes=\u{0}-1",
    ])
    func anythingElseIsRefused(value: String) {
        #expect(ByteRangeSpec(value) == nil)
    }

    static let resolutions: [(spec: ByteRangeSpec, length: Int64, range: ClosedRange<Int64>?)] = [
        (.from(first: 10, last: 19), 100, 10...19), (.from(first: 90, last: 150), 100, 90...99),
        (.from(first: 10, last: nil), 100, 10...99), (.from(first: 99, last: nil), 100, 99...99),
        (.from(first: 100, last: nil), 100, nil), (.from(first: 100, last: 200), 100, nil),
        (.suffix(length: 5), 100, 95...99), (.suffix(length: 500), 100, 0...99), (.suffix(length: 0), 100, nil),
        (.from(first: 0, last: nil), 0, nil), (.suffix(length: 1), 0, nil),
        (.from(first: 0, last: Int64.max), Int64.max, 0...(Int64.max - 1)),
    ]

    @Test(arguments: resolutions)
    func rangesResolveAgainstTheLength(value: (spec: ByteRangeSpec, length: Int64, range: ClosedRange<Int64>?)) {
        #expect(value.spec.resolved(length: value.length) == value.range)
    }
}
