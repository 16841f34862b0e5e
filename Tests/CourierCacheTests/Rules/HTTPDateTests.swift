import Courier
import CourierCache
import Foundation
import Testing

@Suite struct HTTPDateTests {
    static let expected = Date(timeIntervalSince1970: 784_111_777) // 1994-11-06 08:49:37 UTC

    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT",      // IMF-fixdate
        "Sunday, 06-Nov-94 08:49:37 GMT",     // RFC 850
        "Sun Nov  6 08:49:37 1994",           // asctime
        "sun, 06 nov 1994 08:49:37 gmt",      // case-insensitive
        "06 Nov 1994 08:49:37 GMT",           // no weekday
        "Sun,  06   Nov 1994 08:49:37   GMT", // extra spaces
        "Mon, 06 Nov 1994 08:49:37 GMT",      // wrong weekday is not checked
        "Sun, 06 Nov 1994 08:49:37 UTC",
        "Sun, 06 Nov 1994 09:49:37 +0100",
        "Sun Nov 6 08:49:37 1994",
    ])
    func parsesAcceptedForms(text: String) {
        #expect(HTTPDate.parse(text) == Self.expected)
    }

    @Test(arguments: [
        "", "0", "-1", "garbage", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 29 Feb 1995 08:49:37 GMT",
        "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:61:00 GMT",
        "Sun, 06 Nov 1994 08:49:37 PST", "Sun, 06 Nov 1994", "Sun, 06 Nov 1994 08:49:37 GMT trailing",
        "06-Nov 08:49:37 GMT", "Sun, 06 Nov 99999 08:49:37 GMT", "Sun, 006 Nov 1994 08:49:37 GMT",
        "\u{0}\u{0}", "Sun, 06 Nov 1994 ::: GMT", "🙂, 06 Nov 1994 08:49:37 GMT", ",,,,", "Sun, -6 Nov 1994 08:49:37 GMT",
    ])
    func rejectsGarbage(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
        "sun, 06 nov 1994 08:49:37 gmt", "Mon, 06 Nov 1994 08:49:37 GMT", "SUNDAY, 06-NOV-94 08:49:37 GMT",
    ])
    func exactParsingAcceptsTheThreeForms(text: String) {
        #expect(HTTPDate.parseExact(text) == Self.expected)
    }

    @Test(arguments: [
        "Sun, 06 Nov 1994 8:49:37 GMT", "Sun, 06 Nov 94 08:49:37 GMT", "Sun, 06-Nov-1994 08:49:37 GMT",
        "Sun,  06 Nov 1994 08:49:37 GMT", "Sun 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 UTC",
        "06 Nov 1994 08:49:37 GMT", "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49 GMT",
        "Sun, 06 Nov 1994 09:49:37 +0100", "Sun Nov 6 08:49:37 1994", "Sun Nov  6 08:49:37 1994 GMT",
        "Sun, 06 Nov 1994 08:49:37 GMT ", " Sun, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08.49.37 GMT",
        "Sun, 06-Nov-94 08:49:37 GMT", "Sunday, 06 Nov 1994 08:49:37 GMT", "Xyz, 06 Nov 1994 08:49:37 GMT",
        "Sun, 31 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 0000 08:49:37 GMT", "Fri, 31 Dec 9999 23:59:60 GMT", "0", "",
    ])
    func exactParsingRefusesEverythingElse(text: String) {
        #expect(HTTPDate.parseExact(text) == nil)
    }

    @Test func exactAndLenientParsersAgreeOnFormattedDates() {
        for day in stride(from: -25_567, through: 47_482, by: 97) {
            let date = Date(timeIntervalSince1970: Double(day) * 86_400 + 49_377)
            #expect(HTTPDate.parseExact(HTTPDate.string(from: date)) == date)
        }
    }

    /// Exact IMF-fixdates take a byte-level fast path; lower-cased ones take the lenient parser.
    /// Both must agree on every day of two centuries, leap days included.
    @Test func fastAndLenientParsersAgree() {
        for day in stride(from: -25_567, through: 47_482, by: 1) {
            let date = Date(timeIntervalSince1970: Double(day) * 86_400 + 49_377)
            let text = HTTPDate.string(from: date)
            #expect(HTTPDate.parse(text) == date)
            #expect(HTTPDate.parse(text.lowercased()) == date)
        }
    }

    @Test func leapDayIsValid() {
        #expect(HTTPDate.parse("Thu, 29 Feb 2024 00:00:00 GMT") == Date(timeIntervalSince1970: 1_709_164_800))
    }

    @Test func twoDigitYearsPivotAtSeventy() throws {
        let early = try #require(HTTPDate.parse("Saturday, 01-Jan-00 00:00:00 GMT"))
        let late = try #require(HTTPDate.parse("Thursday, 01-Jan-70 00:00:00 GMT"))
        #expect(early == Date(timeIntervalSince1970: 946_684_800))
        #expect(late == Date(timeIntervalSince1970: 0))
    }

    @Test(arguments: [0.0, 784_111_777, 1_709_164_800, -86_400, 4_102_444_800])
    func formatsIMFFixdateAndRoundTrips(seconds: Double) throws {
        let date = Date(timeIntervalSince1970: seconds)
        let text = HTTPDate.string(from: date)
        #expect(try #require(HTTPDate.parse(text)) == date)
    }

    @Test func formatsTheRFCExample() {
        #expect(HTTPDate.string(from: Self.expected) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.string(from: Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
    }

    @Test func formattingExtremeDatesNeverTraps() {
        _ = HTTPDate.string(from: .distantFuture)
        _ = HTTPDate.string(from: .distantPast)
        _ = HTTPDate.string(from: Date(timeIntervalSince1970: .nan))
        _ = HTTPDate.string(from: Date(timeIntervalSince1970: .infinity))
    }

    /// Found by the HTTPDate fuzzer: a leap second at the end of 9999 named year 10000, which
    /// formats back to 9999-12-31 23:59:59 — a date that does not round-trip is refused.
    @Test func aLeapSecondPastYear9999IsRefused() {
        #expect(HTTPDate.parse("Fri, 31 Dec 9999 23:59:60 GMT") == nil)
        #expect(HTTPDate.parse("Fri, 31 Dec 9999 23:59:59 GMT") != nil)
    }
}
