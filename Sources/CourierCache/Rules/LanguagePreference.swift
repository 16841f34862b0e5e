import HTTPTypes

/// The language a request prefers (`Accept-Language`, RFC 9110 §12.5.4) and the one a response is
/// in (`Content-Language`, §8.5), so a `Vary: Accept-Language` selection can match by meaning.
enum LanguagePreference {
    /// The most preferred language range of `Accept-Language` lines, lowercased: the highest
    /// q-value, the first listed among equal ones; nil when there is none (absent, only `*`, only
    /// `q=0`). An element with a malformed q-value is skipped.
    static func preferredRange(in lines: [String]) -> String? {
        var best: (range: String, weight: Int)?
        for element in FieldList.elements(lines) {
            let parts = element.split(separator: ";", omittingEmptySubsequences: false)
            guard let first = parts.first else { continue }
            let range = FieldList.trim(first).lowercased()
            guard !range.isEmpty, range != "*", let weight = weight(of: parts.dropFirst()), weight > 0 else { continue }
            if weight > (best?.weight ?? 0) { best = (range, weight) }
        }
        return best?.range
    }

    /// The one language tag of a `Content-Language` field, lowercased; nil when it is absent or
    /// lists several (a response for several audiences is not "the" language of any one of them).
    static func language(of fields: HTTPFields) -> String? {
        let tags = FieldList.elements(fields[values: .contentLanguage])
        guard tags.count == 1, let tag = tags.first else { return nil }
        return tag.lowercased()
    }

    /// The q-value of an element's parameters in thousandths (1000 without one); nil when malformed.
    private static func weight(of parameters: ArraySlice<Substring>) -> Int? {
        var weight = 1000
        for parameter in parameters {
            let (name, value) = FieldList.directive(FieldList.trim(parameter))
            guard name == "q" else { continue }
            guard let parsed = thousandths(value) else { return nil }
            weight = parsed
        }
        return weight
    }

    /// A qvalue (RFC 9110 §12.4.2: `0`, `0.5`, `1.000`, at most three decimals) in thousandths.
    static func thousandths(_ value: String?) -> Int? {
        guard let value, let integer = value.first, integer == "0" || integer == "1" else { return nil }
        let rest = value.dropFirst()
        guard let point = rest.first else { return integer == "1" ? 1000 : 0 }
        let decimals = rest.dropFirst()
        guard point == ".", decimals.count <= 3, decimals.allSatisfy({ $0 >= "0" && $0 <= "9" }) else { return nil }
        let padded = String(decimals) + String(repeating: "0", count: 3 - decimals.count)
        guard let fraction = Int(padded) else { return nil }
        let result = (integer == "1" ? 1000 : 0) + fraction
        return result <= 1000 ? result : nil
    }
}
