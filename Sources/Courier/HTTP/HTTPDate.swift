import Foundation

/// Parses and formats HTTP dates (RFC 9110 §5.6.7) without `DateFormatter` and without trapping.
///
/// Accepted: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850 form
/// (`Sunday, 06-Nov-94 08:49:37 GMT`) and ANSI C `asctime()` (`Sun Nov  6 08:49:37 1994`).
/// Parsing is lenient: names are case-insensitive, the weekday is optional and not checked,
/// extra spaces are tolerated, seconds may be omitted, and `GMT`, `UTC`, `UT`, `Z` or a numeric
/// `+hhmm` offset are understood. Anything else (e.g. `Expires: 0`) yields `nil`.
/// ``parseExact(_:)`` accepts only the three formats as RFC 9110 writes them (for `Expires`).
package enum HTTPDate {
    /// Parses an HTTP date in any of the three RFC 9110 formats; `nil` when invalid.
    package static func parse(_ string: String) -> Date? {
        // A leap second at the very end of 9999 lands in year 10000, which no HTTP date can name.
        guard let date = parseAnyYear(string), date.timeIntervalSince1970 <= latest else { return nil }
        return date
    }

    /// 9999-12-31 23:59:59 GMT, the last instant an HTTP date can write.
    static let latest: TimeInterval = 253_402_300_799

    private static func parseAnyYear(_ string: String) -> Date? {
        // Every cache hit parses the stored `Date` (and often `Expires`): the exact IMF-fixdate
        // that servers send is read byte by byte; everything else goes through the lenient parser.
        if let fixdate = string.utf8.withContiguousStorageIfAvailable(parseFixdate), let date = fixdate {
            return date
        }
        let tokens = string.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" })
        guard !tokens.isEmpty else { return nil }
        var rest = tokens[...]
        if let first = rest.first, first.allSatisfy(\.isLetter), month(first) == nil {
            rest = rest.dropFirst() // weekday, not validated
        }
        guard let parts = components(Array(rest)) else { return nil }
        return date(from: parts)
    }

    /// Formats a date as IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    package static func string(from date: Date) -> String {
        // Clamp to years 0001...9999 so that no `Date` (even `.distantFuture` or NaN) can trap.
        let interval = date.timeIntervalSince1970
        let clamped = interval.isFinite ? min(max(interval, -62_135_596_800), 253_402_300_799) : 0
        let total = Int(clamped.rounded(.down))
        let days = floorDiv(total, 86_400)
        let secondsOfDay = total - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        let weekday = ((days % 7) + 11) % 7 // 1970-01-01 was a Thursday (index 4)
        func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        return "\(weekdayNames[weekday]), \(pad(day)) \(monthNames[month - 1]) \(yearText) "
            + "\(pad(secondsOfDay / 3600)):\(pad(secondsOfDay % 3600 / 60)):\(pad(secondsOfDay % 60)) GMT"
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT` exactly (any weekday letters, month names as the RFC writes them); `nil` otherwise.
    private static func parseFixdate(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard bytes.count == 29, bytes[3] == UInt8(ascii: ","), bytes[4] == UInt8(ascii: " "), bytes[7] == UInt8(ascii: " "),
              bytes[11] == UInt8(ascii: " "), bytes[16] == UInt8(ascii: " "), bytes[19] == UInt8(ascii: ":"),
              bytes[22] == UInt8(ascii: ":"), bytes[25] == UInt8(ascii: " "), bytes[26] == UInt8(ascii: "G"),
              bytes[27] == UInt8(ascii: "M"), bytes[28] == UInt8(ascii: "T")
        else { return nil }
        func digits(_ start: Int, _ count: Int) -> Int? {
            var value = 0
            for index in start..<start + count {
                let digit = Int(bytes[index]) - Int(UInt8(ascii: "0"))
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        let monthIndex = fixdateMonths.firstIndex { $0.elementsEqual(bytes[8..<11]) }
        guard let monthIndex, let day = digits(5, 2), let year = digits(12, 4), let hour = digits(17, 2),
              let minute = digits(20, 2), let second = digits(23, 2),
              year >= 1, hour <= 23, minute <= 59, second <= 60, day >= 1, day <= daysIn(month: monthIndex + 1, year: year)
        else { return nil }
        return date(from: Components(year: year, month: monthIndex + 1, day: day, hour: hour, minute: minute, second: second, offset: 0))
    }

    private static let fixdateMonths = monthNames.map { Array($0.utf8) }

    struct Components {
        var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, offset: Int
    }

    static let weekdayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func components(_ tokens: [Substring]) -> Components? {
        guard let first = tokens.first else { return nil }
        var day: Int?, monthNumber: Int?, year: Int?, time: Substring?, zone: Substring?
        if first.contains("-") {
            // RFC 850: 06-Nov-94 08:49:37 GMT
            let pieces = first.split(separator: "-", omittingEmptySubsequences: false)
            guard pieces.count == 3, tokens.count >= 2, tokens.count <= 3 else { return nil }
            day = number(pieces[0], maxDigits: 2)
            monthNumber = month(pieces[1])
            year = fullYear(pieces[2])
            time = tokens[1]
            zone = tokens.count == 3 ? tokens[2] : nil
        } else if first.allSatisfy(\.isASCIIDigit) {
            // IMF-fixdate: 06 Nov 1994 08:49:37 GMT
            guard tokens.count >= 4, tokens.count <= 5 else { return nil }
            day = number(first, maxDigits: 2)
            monthNumber = month(tokens[1])
            year = fullYear(tokens[2])
            time = tokens[3]
            zone = tokens.count == 5 ? tokens[4] : nil
        } else {
            // asctime: Nov  6 08:49:37 1994
            guard tokens.count >= 4, tokens.count <= 5 else { return nil }
            monthNumber = month(first)
            day = number(tokens[1], maxDigits: 2)
            time = tokens[2]
            year = fullYear(tokens[3])
            zone = tokens.count == 5 ? tokens[4] : nil
        }
        guard let day, let monthNumber, let year, let time,
              let clock = clock(time), let offset = offset(zone),
              (1...9999).contains(year), day >= 1, day <= daysIn(month: monthNumber, year: year)
        else { return nil }
        return Components(year: year, month: monthNumber, day: day,
                          hour: clock.hour, minute: clock.minute, second: clock.second, offset: offset)
    }

    static func date(from parts: Components) -> Date {
        let days = daysFromCivil(year: parts.year, month: parts.month, day: parts.day)
        let seconds = days * 86_400 + parts.hour * 3600 + parts.minute * 60 + parts.second - parts.offset
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static func number(_ text: Substring, maxDigits: Int) -> Int? {
        guard !text.isEmpty, text.count <= maxDigits, text.allSatisfy(\.isASCIIDigit) else { return nil }
        return Int(text)
    }

    private static func month(_ text: Substring) -> Int? {
        guard text.count >= 3 else { return nil }
        let prefix = text.prefix(3).lowercased()
        guard let index = monthNames.firstIndex(where: { $0.lowercased() == prefix }) else { return nil }
        return index + 1
    }

    /// Two-digit years pivot at 70 (RFC 9110 asks for "not more than 50 years in the future").
    private static func fullYear(_ text: Substring) -> Int? {
        guard let value = number(text, maxDigits: 4) else { return nil }
        switch text.count {
        case 4: return value
        case 1, 2: return value < 70 ? 2000 + value : 1900 + value
        default: return nil
        }
    }

    private static func clock(_ text: Substring) -> (hour: Int, minute: Int, second: Int)? {
        let pieces = text.split(separator: ":", omittingEmptySubsequences: false)
        guard pieces.count == 2 || pieces.count == 3,
              let hour = number(pieces[0], maxDigits: 2), hour <= 23,
              let minute = number(pieces[1], maxDigits: 2), minute <= 59
        else { return nil }
        guard pieces.count == 3 else { return (hour, minute, 0) }
        guard let second = number(pieces[2], maxDigits: 2), second <= 60 else { return nil }
        return (hour, minute, second)
    }

    /// Seconds east of UTC for the zone token; `nil` for an unknown zone.
    private static func offset(_ zone: Substring?) -> Int? {
        guard let zone else { return 0 }
        switch zone.uppercased() {
        case "GMT", "UTC", "UT", "Z": return 0
        default: break
        }
        guard zone.count == 5, let sign = zone.first, sign == "+" || sign == "-",
              let digits = number(zone.dropFirst(), maxDigits: 4),
              digits / 100 <= 23, digits % 100 <= 59
        else { return nil }
        let seconds = (digits / 100) * 3600 + (digits % 100) * 60
        return sign == "+" ? seconds : -seconds
    }

    private static func isLeap(_ year: Int) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func floorDiv(_ value: Int, _ divisor: Int) -> Int {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }

    /// Days since 1970-01-01 for a proleptic Gregorian date (H. Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = floorDiv(shiftedYear, 400)
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date for a count of days since 1970-01-01.
    private static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = floorDiv(shifted, 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
