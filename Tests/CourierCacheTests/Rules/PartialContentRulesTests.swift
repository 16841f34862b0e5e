@testable import CourierCache
import Foundation
import HTTPTypes
import Testing

/// The pure rules of partial content: which 206 responses are stored, what a stored response
/// answers for a `Range`, and how parts combine (RFC 9111 §3.3, §3.4; RFC 9110 §14, §15.3.7.3).
@Suite struct PartialContentRulesTests {
    let rules = CacheRules()

    static func part(_ contentRange: String, etag: String? = "\"v1\"", extra: [(String, String)] = []) -> HTTPResponse {
        var pairs = [("Content-Range", contentRange), ("Cache-Control", "max-age=60")] + extra
        if let etag { pairs.append(("ETag", etag)) }
        return RuleFixtures.response(pairs, status: 206)
    }

    @Test func aSingleRangeWithAKnownLengthIsStorable() {
        let request = RuleFixtures.request([("Range", "bytes=0-9")])
        #expect(rules.isStorable(request: request, response: Self.part("bytes 0-9/100")))
        #expect(rules.isStorable(request: request, response: Self.part("bytes 0-9/100", etag: nil)))
        #expect(rules.isStorable(request: request, response: Self.part("bytes 0-9/100", etag: "W/\"v1\"")))
    }

    @Test(arguments: [
        ("bytes=0-9", "bytes 0-9/*", [(String, String)]()), ("bytes=0-9", "bytes 0-9", []), ("bytes=0-9", "bytes 9-0/100", []),
        ("bytes=0-9", "items 0-9/100", []), ("bytes=0-9", "bytes 0-9/100", [("Content-Encoding", "gzip")]),
        ("bytes=0-1,5-6", "bytes 0-1/100", []), ("bytes=5-2", "bytes 0-1/100", []),
    ])
    func otherPartialShapesAreNotStored(value: (range: String, contentRange: String, extra: [(String, String)])) {
        let request = RuleFixtures.request([("Range", value.range)])
        #expect(!rules.isStorable(request: request, response: Self.part(value.contentRange, extra: value.extra)))
    }

    @Test func aPartialAnswerWithoutARangeRequestOrWithSeveralContentRangesIsNotStored() {
        #expect(!rules.isStorable(request: RuleFixtures.request(), response: Self.part("bytes 0-9/100")))
        let request = RuleFixtures.request([("Range", "bytes=0-9")])
        let twice = Self.part("bytes 0-9/100", extra: [("Content-Range", "bytes 0-9/100")])
        #expect(!rules.isStorable(request: request, response: twice))
    }

    @Test func aCompleteResponseAnswersOneRange() {
        let stored = RuleFixtures.response([("ETag", "\"v1\"")])
        func answer(_ range: String, _ extra: [(String, String)] = []) -> StoredAnswer? {
            rules.storedAnswer(for: RuleFixtures.request([("Range", range)] + extra), from: stored, bodySize: 100)
        }
        #expect(rules.storedAnswer(for: RuleFixtures.request(), from: stored, bodySize: 100) == .whole)
        #expect(answer("bytes=10-19") == .part(HeldRange(bytes: 10...19, completeLength: 100), bodyOffsets: 10..<20))
        #expect(answer("bytes=-5") == .part(HeldRange(bytes: 95...99, completeLength: 100), bodyOffsets: 95..<100))
        #expect(answer("bytes=100-") == .unsatisfiable(completeLength: 100))
        #expect(answer("bytes=0-1,5-6") == nil)
        #expect(answer("bytes=abc") == nil)
        #expect(answer("bytes=0-9", [("If-Range", "\"v1\"")]) == .part(HeldRange(bytes: 0...9, completeLength: 100), bodyOffsets: 0..<10))
        #expect(answer("bytes=0-9", [("If-Range", "\"v0\"")]) == .whole)
        #expect(answer("bytes=0-9", [("If-Range", "W/\"v1\"")]) == .whole)
        #expect(answer("bytes=0-9", [("If-Range", "Sun, 06 Nov 1994 08:49:37 GMT")]) == .whole)
        #expect(rules.storedAnswer(for: RuleFixtures.request([("Range", "bytes=0-9")]), from: stored, bodySize: 0) == nil)
        let encoded = RuleFixtures.response([("Content-Encoding", "gzip")])
        #expect(rules.storedAnswer(for: RuleFixtures.request([("Range", "bytes=0-9")]), from: encoded, bodySize: 100) == nil)
    }

    @Test func aStoredPartAnswersOnlyRangesItHolds() {
        let stored = Self.part("bytes 20-39/100")
        func answer(_ range: String?) -> StoredAnswer? {
            rules.storedAnswer(for: RuleFixtures.request(range.map { [("Range", $0)] } ?? []), from: stored, bodySize: 20)
        }
        #expect(answer(nil) == nil, "a part never answers a request for the whole")
        #expect(answer("bytes=20-39") == .part(HeldRange(bytes: 20...39, completeLength: 100), bodyOffsets: 0..<20))
        #expect(answer("bytes=25-29") == .part(HeldRange(bytes: 25...29, completeLength: 100), bodyOffsets: 5..<10))
        #expect(answer("bytes=30-40") == nil)
        #expect(answer("bytes=-5") == nil)
        #expect(answer("bytes=100-") == .unsatisfiable(completeLength: 100))
        #expect(rules.storedAnswer(for: RuleFixtures.request([("Range", "bytes=20-39")]), from: stored, bodySize: 19) == nil)
        #expect(rules.canAnswer(RuleFixtures.request([("Range", "bytes=21-22")]), from: stored))
        #expect(!rules.canAnswer(RuleFixtures.request([("Range", "bytes=0-22")]), from: stored))
        #expect(!rules.canAnswer(RuleFixtures.request(), from: stored))
    }

    @Test func evaluationNeverServesAPartForTheWhole() {
        let stored = RuleFixtures.stored([("Cache-Control", "max-age=60"), ("Content-Range", "bytes 0-9/100")], status: 206)
        let t0 = RuleFixtures.t0
        #expect(rules.evaluate(request: RuleFixtures.request(), stored: stored, now: t0) == .unusable(.incompleteResponse))
        let held = RuleFixtures.request([("Range", "bytes=2-5")])
        #expect(rules.evaluate(request: held, stored: stored, now: t0) == .fresh(age: 0))
        let notHeld = RuleFixtures.request([("Range", "bytes=5-15")])
        #expect(rules.evaluate(request: notHeld, stored: stored, now: t0) == .unusable(.rangeRequest))
        #expect(rules.selectVariant(for: RuleFixtures.request(), among: [stored]) == nil)
        #expect(rules.selectVariant(for: held, among: [stored]) == 0)
    }

    @Test func partsCombineOnlyWithTheSameStrongValidatorAndNoGap() {
        let new = Self.part("bytes 10-19/100")
        let held = HeldRange(bytes: 10...19, completeLength: 100)
        func combination(with stored: HTTPResponse, size: Int, limit: Int = 1_000, new part: HTTPResponse? = nil) -> PartialCombination {
            rules.combination(of: part ?? new, held: held, with: stored, storedBodySize: size, limit: limit)
        }
        #expect(combination(with: Self.part("bytes 0-9/100"), size: 10) == .combine(union: HeldRange(bytes: 0...19, completeLength: 100)))
        #expect(combination(with: Self.part("bytes 15-99/100"), size: 85) == .combine(union: HeldRange(bytes: 10...99, completeLength: 100)))
        #expect(combination(with: Self.part("bytes 0-8/100"), size: 9) == .replace, "a gap")
        #expect(combination(with: Self.part("bytes 0-9/100", etag: "\"v2\""), size: 10) == .replace)
        #expect(combination(with: Self.part("bytes 0-9/100", etag: "W/\"v1\""), size: 10, new: Self.part("bytes 10-19/100", etag: "W/\"v1\"")) == .replace)
        #expect(combination(with: Self.part("bytes 0-9/100", etag: nil), size: 10, new: Self.part("bytes 10-19/100", etag: nil)) == .replace)
        #expect(combination(with: Self.part("bytes 0-9/101"), size: 10) == .replace, "another length")
        #expect(combination(with: Self.part("bytes 0-9/100"), size: 9) == .replace, "a stored body that disagrees")
        #expect(combination(with: Self.part("bytes 0-9/100"), size: 10, limit: 19) == .replace, "past the limit")
        let complete = RuleFixtures.response([("ETag", "\"v1\"")])
        #expect(combination(with: complete, size: 100) == .keepStored)
        #expect(combination(with: complete, size: 99) == .replace)
    }

    @Test func aCombinedHeadTakesTheNewestFieldsAndBecomesCompleteWhenWhole() throws {
        let (a, b) = (try #require(HTTPField.Name("A")), try #require(HTTPField.Name("B")))
        let stored = RuleFixtures.fields([("A", "1"), ("B", "1"), ("Content-Range", "bytes 0-9/20"), ("Content-Length", "10")])
        let new = RuleFixtures.fields([("A", "2"), ("Content-Range", "bytes 10-19/20"), ("Content-Length", "10")])
        let partial = rules.combinedHead(stored: stored, new: new, union: HeldRange(bytes: 0...14, completeLength: 20))
        #expect(partial.status == 206)
        #expect(partial.fields[values: .contentRange] == ["bytes 0-14/20"])
        #expect(partial.fields[values: .contentLength] == ["15"])
        let whole = rules.combinedHead(stored: stored, new: new, union: HeldRange(bytes: 0...19, completeLength: 20))
        #expect(whole.status == 200)
        #expect(whole.fields[values: .contentRange].isEmpty)
        #expect(whole.fields[values: .contentLength] == ["20"])
        for head in [partial, whole] {
            #expect(head.fields[values: a] == ["2"])
            #expect(head.fields[values: b] == ["1"])
        }
    }

    @Test func aNotModifiedKeepsThePartsOwnContentRange() throws {
        let stored = RuleFixtures.fields([("Content-Range", "bytes 0-9/20"), ("X-Version", "1")])
        let notModified = RuleFixtures.fields([("Content-Range", "bytes 0-0/20"), ("X-Version", "2")])
        let merged = rules.mergeKeepingHeldRange(stored: stored, notModified: notModified)
        #expect(merged[values: .contentRange] == ["bytes 0-9/20"])
        #expect(merged[values: try #require(HTTPField.Name("X-Version"))] == ["2"])
    }

    @Test func assemblyPlacesBothPartsAndRefusesMisfits() {
        let union = HeldRange(bytes: 0...5, completeLength: 6)
        let first = (HeldRange(bytes: 0...3, completeLength: 6), Data([0, 1, 2, 3]))
        let second = (HeldRange(bytes: 2...5, completeLength: 6), Data([2, 3, 4, 5]))
        #expect(CacheExchange.assemble(union, first, second) == Data([0, 1, 2, 3, 4, 5]))
        let outside = (HeldRange(bytes: 4...7, completeLength: 8), Data([4, 5, 6, 7]))
        #expect(CacheExchange.assemble(union, first, outside) == nil)
        let short = (HeldRange(bytes: 2...5, completeLength: 6), Data([2, 3]))
        #expect(CacheExchange.assemble(union, first, short) == nil)
    }
}
