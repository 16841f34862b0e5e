import Foundation

extension HTTPDate {
    /// Parses an HTTP date only in one of the three forms RFC 9110 §5.6.7 defines, exactly; `nil` otherwise.
    ///
    /// - IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`
    /// - RFC 850: `Sunday, 06-Nov-94 08:49:37 GMT` (two-digit years pivot at 70, as in ``parse(_:)``)
    /// - asctime: `Sun Nov  6 08:49:37 1994`
    ///
    /// Names are matched case-insensitively (RFC 9111 §4.2 asks caches to); the weekday must be a
    /// weekday name but is not checked against the date. Everything else — a one-digit hour, a
    /// two-digit year in an IMF-fixdate, doubled spaces, a missing comma, `UTC` — is refused.
    /// RFC 9111 §5.3 treats such an `Expires` as already expired, hence no leniency here.
    package static func parseExact(_ string: String) -> Date? {
        let bytes = string.utf8.map { byte in (65...90).contains(byte) ? byte + 32 : byte }
        guard let parts = imfFixdate(bytes) ?? rfc850Date(bytes) ?? asctimeDate(bytes),
              parts.year >= 1, parts.day >= 1, parts.day <= daysIn(month: parts.month, year: parts.year)
        else { return nil }
        let date = date(from: parts)
        return date.timeIntervalSince1970 <= latest ? date : nil
    }

    /// `sun, 06 nov 1994 08:49:37 gmt` (lowercased bytes).
    private static func imfFixdate(_ bytes: [UInt8]) -> Components? {
        guard bytes.count == 29, name(bytes[0..<3], in: weekdayNames) != nil, text(bytes[3..<5], ", "),
              let day = digits(bytes[5..<7]), bytes[7] == space, let month = name(bytes[8..<11], in: monthNames),
              bytes[11] == space, let year = digits(bytes[12..<16]), bytes[16] == space,
              let clock = clock(bytes[17..<25]), text(bytes[25..<29], " gmt")
        else { return nil }
        return Components(year: year, month: month, day: day, hour: clock.hour, minute: clock.minute, second: clock.second, offset: 0)
    }

    /// `sunday, 06-nov-94 08:49:37 gmt` (lowercased bytes).
    private static func rfc850Date(_ bytes: [UInt8]) -> Components? {
        guard let comma = bytes.firstIndex(of: UInt8(ascii: ",")), bytes.count == comma + 24,
              name(bytes[0..<comma], in: longWeekdayNames) != nil, bytes[comma + 1] == space
        else { return nil }
        let start = comma + 2
        guard let day = digits(bytes[start..<start + 2]), bytes[start + 2] == dash,
              let month = name(bytes[start + 3..<start + 6], in: monthNames), bytes[start + 6] == dash,
              let shortYear = digits(bytes[start + 7..<start + 9]), bytes[start + 9] == space,
              let clock = clock(bytes[start + 10..<start + 18]), text(bytes[start + 18..<start + 22], " gmt")
        else { return nil }
        let year = shortYear < 70 ? 2000 + shortYear : 1900 + shortYear
        return Components(year: year, month: month, day: day, hour: clock.hour, minute: clock.minute, second: clock.second, offset: 0)
    }

    /// `sun nov  6 08:49:37 1994` (lowercased bytes; the day is two digits or a space and one digit).
    private static func asctimeDate(_ bytes: [UInt8]) -> Components? {
        guard bytes.count == 24, name(bytes[0..<3], in: weekdayNames) != nil, bytes[3] == space,
              let month = name(bytes[4..<7], in: monthNames), bytes[7] == space,
              let day = bytes[8] == space ? digits(bytes[9..<10]) : digits(bytes[8..<10]), bytes[10] == space,
              let clock = clock(bytes[11..<19]), bytes[19] == space, let year = digits(bytes[20..<24])
        else { return nil }
        return Components(year: year, month: month, day: day, hour: clock.hour, minute: clock.minute, second: clock.second, offset: 0)
    }

    private static let space = UInt8(ascii: " ")
    private static let dash = UInt8(ascii: "-")
    private static let longWeekdayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]

    /// `hh:mm:ss` with two digits each; seconds up to 60 for a leap second.
    private static func clock(_ bytes: ArraySlice<UInt8>) -> (hour: Int, minute: Int, second: Int)? {
        let start = bytes.startIndex
        guard bytes.count == 8, bytes[start + 2] == UInt8(ascii: ":"), bytes[start + 5] == UInt8(ascii: ":"),
              let hour = digits(bytes[start..<start + 2]), let minute = digits(bytes[start + 3..<start + 5]),
              let second = digits(bytes[start + 6..<start + 8]), hour <= 23, minute <= 59, second <= 60
        else { return nil }
        return (hour, minute, second)
    }

    /// The value of ASCII digits only; `nil` for anything else.
    private static func digits(_ bytes: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in bytes {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// The 1-based position of the lowercased name `bytes` in `names`.
    private static func name(_ bytes: ArraySlice<UInt8>, in names: [String]) -> Int? {
        names.firstIndex { $0.lowercased().utf8.elementsEqual(bytes) }.map { $0 + 1 }
    }

    private static func text(_ bytes: ArraySlice<UInt8>, _ expected: String) -> Bool {
        bytes.elementsEqual(expected.utf8)
    }
}
