import Foundation
import HTTPTypes

/// The client's secret list: header fields and query items whose values are secret.
///
/// One value per client (``Client/Configuration/redaction``) serves every step that describes,
/// stores or forwards a request: logs, errors (an underlying transport error's text included),
/// traces and metrics show `REDACTED` instead of the value; a request that carries a secret header
/// field is cached and coalesced only for the user (or the credentials) that sent it; no secret
/// header field goes to another origin; a cache stores a secret value only as a keyed hash.
public struct Redaction: Sendable, Hashable {
    /// Header field names (case-insensitive: kept lowercased).
    public var headerNames = Self.defaultHeaderNames {
        didSet { headerNames = Self.lowercased(headerNames) }
    }
    /// Query item names (case-insensitive: kept lowercased).
    public var queryNames = Self.defaultQueryNames {
        didSet { queryNames = Self.lowercased(queryNames) }
    }

    /// `names` with each one lowercased; `names` itself when they already are.
    private static func lowercased(_ names: Set<String>) -> Set<String> {
        names.allSatisfy { $0 == $0.lowercased() } ? names : Set(names.map { $0.lowercased() })
    }

    // Built once: every call's context starts from the default list, and hashing its names each
    // time cost more than the rest of the call's setup.
    private static let defaultHeaderNames: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-auth-token", "x-api-key", "api-key",
        "x-goog-api-key", "x-amz-security-token", "x-csrf-token", "x-xsrf-token",
    ]
    private static let defaultQueryNames: Set<String> = [
        "token", "access_token", "refresh_token", "id_token", "api_key", "apikey", "key", "password", "secret",
        "client_secret", "signature", "sig", "code", "x-amz-signature", "x-amz-security-token", "x-amz-credential",
    ]

    /// The default list.
    public init() {}

    /// Whether a header's value must be hidden.
    package func isSecret(header name: HTTPField.Name) -> Bool {
        headerNames.contains(name.canonicalName)
    }

    /// Whether a query item's value must be hidden (`name` as it stands in the URL, percent-encoded or not).
    package func isSecret(queryItem name: String) -> Bool {
        isSecretQueryName(name[...])
    }

    /// The name of the first query item of `target` (a URL or request target) whose value must be
    /// hidden, percent-decoded; nil when it has none.
    package func firstSecretQueryName(in target: String) -> String? {
        guard !queryNames.isEmpty, let questionMark = target.firstIndex(of: "?") else { return nil }
        for item in target[target.index(after: questionMark)...].split(separator: "&") {
            let name = item.prefix { $0 != "=" }
            if isSecretQueryName(name) { return name.removingPercentEncoding ?? String(name) }
        }
        return nil
    }

    /// Whether a header field carries credentials: one of the list's, or `Authorization`,
    /// `Proxy-Authorization`, `Cookie` and `X-Auth-Token`, which always do (even with an empty list).
    package func isCredential(header name: HTTPField.Name) -> Bool {
        Self.credentialFields.contains(name) || isSecret(header: name)
    }

    private static let credentialFields: [HTTPField.Name] = [.authorization, .proxyAuthorization, .cookie, .xAuthToken]

    /// The credential fields of `fields` (see ``isCredential(header:)``), in order, as `name: value` lines.
    package func credentialValues(in fields: HTTPFields) -> [String] {
        fields.lazy.filter { isCredential(header: $0.name) }.map { $0.name.canonicalName + ": " + $0.value }
    }

    /// The fields with secret values replaced.
    public func redact(_ fields: HTTPFields) -> HTTPFields {
        var result = HTTPFields()
        for field in fields {
            result.append(isSecret(header: field.name) ? HTTPField(name: field.name, value: "REDACTED") : field)
        }
        return result
    }

    /// The URL or path with the values of secret query items replaced.
    public func redact(url: String) -> String {
        replacingSecretQueryValues(in: url) { _ in "REDACTED" }
    }

    /// The URL or path with the value of each secret query item replaced by `replacement(value)`
    /// (the value as it stands in the URL); the URL itself when it has none.
    package func replacingSecretQueryValues(in url: String, with replacement: (Substring) -> String) -> String {
        // Looked for in UTF-8: a `Character` scan of every call's URL costs more than the rest.
        guard !queryNames.isEmpty, let questionMark = url.utf8.firstIndex(of: UInt8(ascii: "?")) else { return url }
        let query = url[url.index(after: questionMark)...]
        // Most URLs carry no secret: nothing is allocated to find that out, nothing rebuilt.
        var rest = query[...]
        var hasSecret = false
        while !rest.isEmpty, !hasSecret {
            let end = rest.firstIndex(of: "&") ?? rest.endIndex
            hasSecret = isSecretQueryName(rest[..<end].prefix { $0 != "=" })
            rest = end == rest.endIndex ? rest[end...] : rest[rest.index(after: end)...]
        }
        guard hasSecret else { return url }
        let items = query.split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
            let name = item.prefix { $0 != "=" }
            guard isSecretQueryName(name) else { return String(item) }
            let value = item.dropFirst(name.count + 1)
            return "\(name)=\(replacement(value))"
        }
        return url[..<questionMark] + "?" + items.joined(separator: "&")
    }

    /// Free text (an underlying error's description, a log line) with the secret query values of
    /// every URL or request target in it redacted: `https://…?token=…` and `/items?token=…` alike.
    ///
    /// A URL runs to the next white space, quote, bracket or brace, so a secret value is hidden
    /// whole even when a comma or a semicolon follows it.
    package func redact(text: String) -> String {
        guard !queryNames.isEmpty, text.utf8.contains(UInt8(ascii: "?")) else { return text }
        var result = ""
        var rest = text[...]
        while let mark = rest.firstIndex(of: "?") {
            let start = rest[..<mark].lastIndex(where: Self.endsURL).map { rest.index(after: $0) } ?? rest.startIndex
            let end = rest[mark...].firstIndex(where: Self.endsURL) ?? rest.endIndex
            result += rest[..<start]
            result += redact(url: String(rest[start..<end]))
            rest = rest[end...]
        }
        return result + rest
    }

    private static func endsURL(_ character: Character) -> Bool {
        character.isWhitespace || "\"'<>(){}[]".contains(character)
    }

    private func isSecretQueryName(_ name: Substring) -> Bool {
        // Percent-decoding (Foundation, slow) only for names that are encoded.
        let decoded = name.contains("%") ? String(name).removingPercentEncoding ?? String(name) : String(name)
        return queryNames.contains(decoded.lowercased())
    }

    /// Both lists together: what either one hides, the result hides.
    package func merging(_ other: Redaction) -> Redaction {
        guard other != self else { return self }
        var merged = self
        merged.headerNames.formUnion(other.headerNames)
        merged.queryNames.formUnion(other.queryNames)
        return merged
    }
}
