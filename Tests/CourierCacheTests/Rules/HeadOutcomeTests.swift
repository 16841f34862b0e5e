import CourierCache
import HTTPTypes
import Testing

/// RFC 9111 §4.3.5 as a value: what a `HEAD` answer does to a stored `GET` response.
@Suite struct HeadOutcomeTests {
    let rules = CacheRules()
    let stored = RuleFixtures.stored([("Cache-Control", "max-age=10"), ("ETag", "\"v1\""), ("Content-Length", "7"), ("X-A", "1")])

    private func outcome(_ headers: [(String, String)], status: Int = 200, of stored: StoredResponse? = nil) -> HeadOutcome {
        rules.outcome(ofHead: RuleFixtures.response(headers, status: status), for: stored ?? self.stored, storedBodySize: 7)
    }

    @Test func matchingValidatorsUpdateTheStoredFields() throws {
        guard case .update(let fields) = outcome([("Cache-Control", "max-age=600"), ("ETag", "\"v1\""), ("Content-Length", "7"), ("X-A", "2")])
        else { Issue.record("expected an update"); return }
        #expect(fields[.cacheControl] == "max-age=600")
        #expect(fields[try #require(HTTPField.Name("X-A"))] == "2")
        #expect(fields[.contentLength] == "7")
    }

    @Test(arguments: [
        [("ETag", "\"v2\"")], [("ETag", "\"v1\""), ("Content-Length", "8")], [("Content-Length", "7")], [("ETag", "\"v1\""), ("Content-Length", "x")],
    ])
    func aDifferentRepresentationInvalidates(headers: [(String, String)]) {
        #expect(outcome(headers) == .invalidate)
    }

    @Test func goneInvalidatesAndOtherStatusesSayNothing() {
        #expect(outcome([], status: 410) == .invalidate)
        #expect(outcome([("ETag", "\"v1\"")], status: 404) == .keep)
        #expect(outcome([("ETag", "\"v1\"")], status: 500) == .keep)
        #expect(outcome([("ETag", "\"v1\"")], status: 304) == .keep)
    }

    @Test func withoutValidatorsOnEitherSideTheLengthDecides() {
        let plain = RuleFixtures.stored([("Cache-Control", "max-age=10")])
        #expect(outcome([("Content-Length", "7")], of: plain) != .invalidate)
        #expect(outcome([("Content-Length", "9")], of: plain) == .invalidate)
    }

    /// A stored part stands for the complete `200`: a `HEAD` of the same representation refreshes it.
    @Test func aHeadOfTheSameRepresentationUpdatesAStoredPart() throws {
        let part = RuleFixtures.stored(
            [("Cache-Control", "max-age=10"), ("ETag", "\"v1\""), ("Content-Range", "bytes 0-9/100"), ("Content-Length", "10")], status: 206)
        let head = RuleFixtures.response([("Cache-Control", "max-age=600"), ("ETag", "\"v1\""), ("Content-Length", "100")])
        guard case .update(let fields) = rules.outcome(ofHead: head, for: part, storedBodySize: 10)
        else { Issue.record("expected an update"); return }
        #expect(fields[.cacheControl] == "max-age=600")
        #expect(fields[.contentRange] == "bytes 0-9/100")
        #expect(fields[.contentLength] == "10")
    }

    @Test(arguments: [[("ETag", "\"v2\""), ("Content-Length", "100")], [("ETag", "\"v1\""), ("Content-Length", "10")]])
    func aHeadOfAnotherRepresentationInvalidatesAStoredPart(headers: [(String, String)]) {
        let part = RuleFixtures.stored([("ETag", "\"v1\""), ("Content-Range", "bytes 0-9/100"), ("Content-Length", "10")], status: 206)
        #expect(rules.outcome(ofHead: RuleFixtures.response(headers), for: part, storedBodySize: 10) == .invalidate)
    }
}
