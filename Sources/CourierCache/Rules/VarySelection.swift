import HTTPTypes

/// The request header values a stored response was selected by (its `Vary` header, RFC 9111 §4.1).
///
/// Names are lowercased; values are normalised (trimmed, inner whitespace collapsed and dropped
/// around the `;` of parameters, quoted strings kept as they are, list elements joined with `", "`;
/// several field lines are combined; `Accept-Language` ranges are also lowercased and sorted, since
/// neither their case nor their order changes their meaning). A name in ``names`` without an entry
/// in ``values`` means the original request did not carry that field, and it then only matches
/// requests that lack it too.
public struct VarySelection: Sendable, Hashable, Codable {
    /// The lowercased, sorted, de-duplicated field names listed by `Vary`.
    public let names: [String]
    /// The normalised request values by lowercased name; absent fields have no entry.
    public let values: [String: String]

    /// A selection for a response without `Vary`: it matches every request.
    public static let none = VarySelection(names: [], values: [:])

    /// Creates a selection from names and values (names are lowercased; values kept as given).
    public init(names: [String], values: [String: String]) {
        let lowered = Set(names.map { $0.lowercased() })
        self.names = lowered.sorted()
        var filtered: [String: String] = [:]
        for (name, value) in values where lowered.contains(name.lowercased()) {
            filtered[name.lowercased()] = value
        }
        self.values = filtered
    }

    /// Captures the values of `request` for the names in the `Vary` header of `response`; the
    /// values of credential fields as `secrets` keeps them (keyed hashes), when given.
    ///
    /// Returns `nil` when the response varies on `*` or on a malformed field name: such a
    /// response can never be matched and must not be stored.
    package init?(response: HTTPResponse, request: HTTPRequest, secrets: SecretValues? = nil) {
        guard let names = Self.varyNames(of: response.headerFields) else { return nil }
        var values: [String: String] = [:]
        for name in names {
            guard let fieldName = HTTPField.Name(name) else { return nil }
            if let value = Self.normalizedValue(of: fieldName, in: request.headerFields, secrets: secrets) {
                values[name] = value
            }
        }
        self.init(names: names, values: values)
    }

    /// Whether `request` carries the same (normalised) values as the request this selection captured.
    ///
    /// With the `stored` response the selection belongs to, `Accept-Language` also matches by
    /// meaning: a response whose one `Content-Language` is the language `request` prefers most
    /// (by q-value) answers it whatever the captured text (RFC 9111 §4.1 allows normalising by the
    /// field's semantics).
    package func matches(_ request: HTTPRequest, secrets: SecretValues? = nil, stored: HTTPResponse? = nil) -> Bool {
        for name in names {
            guard let fieldName = HTTPField.Name(name) else { return false }
            if Self.normalizedValue(of: fieldName, in: request.headerFields, secrets: secrets) == values[name] { continue }
            guard fieldName == .acceptLanguage, let stored, let language = LanguagePreference.language(of: stored.headerFields),
                  LanguagePreference.preferredRange(in: request.headerFields[values: .acceptLanguage]) == language
            else { return false }
        }
        return true
    }

    /// A stable text form (sorted names, `name=value` lines): what a storage tells variants of a key apart by.
    public var canonicalKey: String {
        names.isEmpty ? "" : names.map { name in values[name].map { "\(name)=\($0)" } ?? name }.joined(separator: "\n")
    }

    /// The lowercased names in the `Vary` fields of `fields`; `nil` for `Vary: *` or a malformed name.
    package static func varyNames(of fields: HTTPFields) -> [String]? {
        var names: Set<String> = []
        for element in FieldList.elements(fields[values: .vary]) {
            if element == "*" { return nil }
            guard HTTPField.Name(String(element)) != nil else { return nil }
            names.insert(element.lowercased())
        }
        return names.sorted()
    }

    /// The combined, whitespace-normalised value of every `name` line in `fields` (as `secrets`
    /// keeps it); `nil` when absent.
    static func normalizedValue(of name: HTTPField.Name, in fields: HTTPFields, secrets: SecretValues?) -> String? {
        guard let value = normalizedValue(of: name, in: fields) else { return nil }
        return secrets?.kept(value, of: name) ?? value
    }

    private static func normalizedValue(of name: HTTPField.Name, in fields: HTTPFields) -> String? {
        let lines = fields[values: name]
        guard !lines.isEmpty else { return nil }
        var elements = FieldList.elements(lines).map(normalizeWhitespace)
        if name == .acceptLanguage {
            // Language ranges are case-insensitive and ranked by their q-values, not their order,
            // so `en-US, fr` and `FR, en-us` ask for the same thing.
            elements = elements.map { $0.lowercased().filter { $0 != " " } }.sorted()
        }
        return elements.joined(separator: ", ")
    }

    /// Collapses runs of whitespace to one space and drops it next to `;`, where parameters allow
    /// optional whitespace (RFC 9110 §5.6.6); inside a quoted string every character counts.
    private static func normalizeWhitespace(_ text: Substring) -> String {
        var result = ""
        var pendingSpace = false
        var inQuotes = false
        var escaped = false
        for character in text {
            if inQuotes {
                result.append(character)
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inQuotes = false
                }
            } else if character == " " || character == "\t" {
                pendingSpace = !result.isEmpty
            } else {
                if pendingSpace, character != ";", result.last != ";" { result.append(" ") }
                pendingSpace = false
                result.append(character)
                inQuotes = character == "\""
            }
        }
        return result
    }
}
