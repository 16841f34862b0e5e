import CourierCache
import HTTPTypes
import Testing

/// RFC 9111 §3.1: what the cache leaves out of a stored response.
@Suite struct StoredFieldsTests {
    let rules = CacheRules()

    @Test func hopByHopAndConnectionListedFieldsAreDropped() {
        let fields = RuleFixtures.fields([
            ("Connection", "X-Per-Hop, close"), ("X-Per-Hop", "1"), ("Keep-Alive", "timeout=5"), ("TE", "trailers"),
            ("Transfer-Encoding", "chunked"), ("Upgrade", "h2c"), ("Proxy-Connection", "keep-alive"),
            ("Proxy-Authenticate", "Basic realm=\"p\""), ("Proxy-Authentication-Info", "x"),
            ("Cache-Control", "max-age=60"), ("X-Kept", "yes"),
        ])
        let stored = rules.fieldsToStore(fields)
        #expect(stored.map(\.name.canonicalName) == ["cache-control", "x-kept"])
    }

    @Test func fieldsNamedByQualifiedNoCacheAndPrivateAreDropped() {
        let fields = RuleFixtures.fields([
            ("Cache-Control", "max-age=60, no-cache=\"X-Secret\", private=Set-Cookie"), ("X-Secret", "s"),
            ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2"), ("ETag", "\"v\""),
        ])
        #expect(rules.fieldsToStore(fields).map(\.name.canonicalName) == ["cache-control", "etag"])
    }

    /// The usual `Connection` words and the directives that name fields are recognised in any case,
    /// on any of several lines.
    @Test func namesAreFoundInAnyCaseAndOnAnyLine() {
        let fields = RuleFixtures.fields([
            ("Connection", "Keep-Alive"), ("Connection", "CLOSE"), ("Connection", "X-Hop"), ("X-Hop", "1"),
            ("Cache-Control", "max-age=60"), ("Cache-Control", "No-Cache=\"X-Secret\""), ("Cache-Control", "PRIVATE=\"X-Mine\""),
            ("X-Secret", "s"), ("X-Mine", "m"), ("ETag", "\"v\""),
        ])
        #expect(rules.fieldsToStore(fields).map(\.name.canonicalName) == ["cache-control", "cache-control", "cache-control", "etag"])
    }

    @Test func aResponseWithoutSuchFieldsIsKeptWhole() {
        let fields = RuleFixtures.fields([("Cache-Control", "max-age=60"), ("X-A", "1"), ("X-A", "2")])
        #expect(rules.fieldsToStore(fields) == fields)
    }
}
