import Courier
import CourierCache
import Foundation
import HTTPTypes
import Testing

@Suite struct MergeTests {
    let rules = CacheRules()

    @Test func notModifiedFieldsReplaceStoredOnes() throws {
        let stored = RuleFixtures.fields([
            ("Date", "Sun, 06 Nov 1994 08:49:37 GMT"), ("Cache-Control", "max-age=60"), ("ETag", "\"v1\""),
            ("Content-Type", "application/json"), ("Content-Length", "1234"), ("X-Custom", "a"), ("X-Custom", "b"),
        ])
        let notModified = RuleFixtures.fields([
            ("Date", "Mon, 07 Nov 1994 08:49:37 GMT"), ("Cache-Control", "max-age=120"), ("ETag", "\"v1\""),
            ("Content-Length", "0"), ("X-Custom", "c"), ("X-New", "n"),
        ])
        let merged = rules.merge(stored: stored, notModified: notModified)
        #expect(merged[values: .date] == ["Mon, 07 Nov 1994 08:49:37 GMT"])
        #expect(merged[values: .cacheControl] == ["max-age=120"])
        #expect(merged[values: .contentLength] == ["1234"])
        #expect(merged[values: .contentType] == ["application/json"])
        #expect(merged[values: .eTag] == ["\"v1\""])
        #expect(merged[values: try #require(HTTPField.Name("X-Custom"))] == ["c"])
        #expect(merged[try #require(HTTPField.Name("X-New"))] == "n")
    }

    @Test func connectionFieldsAndContentLengthAreNeverUpdated() throws {
        let stored = RuleFixtures.fields([("Content-Encoding", "gzip"), ("Content-Type", "image/png"), ("Content-Length", "10")])
        let notModified = RuleFixtures.fields([
            ("Content-Encoding", "br"), ("Content-Type", "text/html"), ("Transfer-Encoding", "chunked"),
            ("Connection", "close, X-Hop"), ("Keep-Alive", "timeout=5"), ("X-Hop", "1"), ("Content-Range", "bytes 0-1/2"),
            ("Content-Length", "0"),
        ])
        let merged = rules.merge(stored: stored, notModified: notModified)
        #expect(merged[values: .contentEncoding] == ["br"])
        #expect(merged[values: .contentType] == ["text/html"])
        #expect(merged[values: .contentRange] == ["bytes 0-1/2"])
        #expect(merged[values: .contentLength] == ["10"])
        #expect(!merged.contains(.transferEncoding))
        #expect(!merged.contains(.connection))
        #expect(!merged.contains(try #require(HTTPField.Name("X-Hop"))))
        #expect(!merged.contains(try #require(HTTPField.Name("Keep-Alive"))))
    }

    @Test func fieldsTheNewerResponseNamesInNoCacheAreDropped() throws {
        let stored = RuleFixtures.fields([("X-Secret", "old"), ("Cache-Control", "max-age=60")])
        let notModified = RuleFixtures.fields([("Cache-Control", "max-age=60, no-cache=\"X-Secret\""), ("X-Secret", "new")])
        #expect(!rules.merge(stored: stored, notModified: notModified).contains(try #require(HTTPField.Name("X-Secret"))))
    }

    @Test func staleDateAndAgeAreDroppedWhenTheNotModifiedOmitsThem() {
        let stored = RuleFixtures.fields([("Date", "Sun, 06 Nov 1994 08:49:37 GMT"), ("Age", "500"), ("ETag", "\"v\"")])
        let merged = rules.merge(stored: stored, notModified: RuleFixtures.fields([("ETag", "\"v\"")]))
        #expect(!merged.contains(.date))
        #expect(!merged.contains(.age))
        #expect(merged[.eTag] == "\"v\"")
    }

    @Test func mergedEntryIsFreshAgainWithTheNewTimes() {
        let t0 = RuleFixtures.t0
        let old = RuleFixtures.stored([("Cache-Control", "max-age=60"), ("ETag", "\"v\"")])
        #expect(!rules.isFresh(old, now: t0.addingTimeInterval(600)))
        let later = t0.addingTimeInterval(600)
        let notModified = RuleFixtures.fields([("Date", HTTPDate.string(from: later)), ("Cache-Control", "max-age=60")])
        var refreshed = old
        refreshed.response.headerFields = rules.merge(stored: old.response.headerFields, notModified: notModified)
        refreshed.requestTime = later
        refreshed.responseTime = later
        #expect(rules.isFresh(refreshed, now: later.addingTimeInterval(10)))
    }
}
