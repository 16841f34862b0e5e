/// Lenient tokenising of comma-separated HTTP field values (RFC 9110 §5.6.1).
///
/// Quoted strings are honoured (a comma inside quotes does not split), backslash escapes are
/// understood, an unterminated quote runs to the end of the value, and empty elements are dropped.
/// Nothing here can trap on any input.
enum FieldList {
    /// Splits one field value into its trimmed, non-empty list elements.
    static func elements(_ value: String) -> [Substring] {
        var result: [Substring] = []
        var start = value.startIndex
        var index = value.startIndex
        var inQuotes = false
        var escaped = false
        while index < value.endIndex {
            let character = value[index]
            if escaped {
                escaped = false
            } else if inQuotes && character == "\\" {
                escaped = true
            } else if character == "\"" {
                inQuotes.toggle()
            } else if character == "," && !inQuotes {
                appendTrimmed(value[start..<index], to: &result)
                start = value.index(after: index)
            }
            index = value.index(after: index)
        }
        appendTrimmed(value[start..<value.endIndex], to: &result)
        return result
    }

    /// Splits every field line and concatenates their elements, in order.
    static func elements(_ values: [String]) -> [Substring] {
        values.flatMap { elements($0) }
    }

    /// Splits a `name[=value]` directive; the name is lowercased, a quoted value is unquoted.
    static func directive(_ element: Substring) -> (name: String, value: String?) {
        guard let equals = element.firstIndex(of: "=") else {
            return (trim(element).lowercased(), nil)
        }
        let name = trim(element[element.startIndex..<equals]).lowercased()
        let rawValue = trim(element[element.index(after: equals)...])
        return (name, unquote(rawValue))
    }

    /// Whether optional whitespace surrounds the `=` of a `name=value` directive, which its grammar forbids.
    static func hasSpaceAroundEquals(_ element: Substring) -> Bool {
        guard let equals = element.firstIndex(of: "=") else { return false }
        let before = element[..<equals].last
        let after = element[element.index(after: equals)...].first
        return before == " " || before == "\t" || after == " " || after == "\t"
    }

    /// Removes surrounding double quotes and backslash escapes; returns unquoted input unchanged.
    static func unquote(_ value: Substring) -> String {
        guard value.first == "\"" else { return String(value) }
        var result = ""
        var escaped = false
        for character in value.dropFirst() {
            if escaped {
                result.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                break
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// Parses RFC 9111 delta-seconds: ASCII digits only, clamped to 2^31 on overflow.
    static func deltaSeconds(_ value: String?) -> Int? {
        guard let value, !value.isEmpty else { return nil }
        var result = 0
        for byte in value.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            result = min(result * 10 + Int(byte - UInt8(ascii: "0")), deltaSecondsCap)
        }
        return result
    }

    /// The largest delta-seconds value RFC 9111 §1.2.2 asks caches to represent.
    static let deltaSecondsCap = 2_147_483_648

    /// Trims optional whitespace (SP / HTAB) from both ends.
    static func trim(_ value: Substring) -> Substring {
        var slice = value
        while let first = slice.first, first == " " || first == "\t" { slice.removeFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice.removeLast() }
        return slice
    }

    private static func appendTrimmed(_ element: Substring, to result: inout [Substring]) {
        let trimmed = trim(element)
        if !trimmed.isEmpty { result.append(trimmed) }
    }
}
