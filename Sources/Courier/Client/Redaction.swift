import Foundation
import HTTPTypes

/// Names whose values are secret: they are replaced by `REDACTED` wherever Courier prints or keeps a request.
public struct Redaction: Sendable, Hashable {
    /// Header field names (case-insensitive).
    public var headerNames: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "x-auth-token", "x-api-key",
    ]
    /// Query item names (case-insensitive).
    public var queryNames: Set<String> = [
        "token", "access_token", "refresh_token", "api_key", "apikey", "key", "password", "secret", "signature",
    ]

    /// The default set.
    public init() {}

    /// Whether a header's value must be hidden.
    public func isSecret(header name: HTTPField.Name) -> Bool {
        headerNames.contains(name.canonicalName) || headerNames.contains(name.rawName.lowercased())
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
        // Looked for in UTF-8: a `Character` scan of every call's URL costs more than the rest.
        guard !queryNames.isEmpty, let questionMark = url.utf8.firstIndex(of: UInt8(ascii: "?")) else { return url }
        let query = url[url.index(after: questionMark)...]
        // Fast path (every call builds its summary): no item is named like a secret, nothing to
        // rewrite, and nothing allocated to find that out.
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
            return isSecretQueryName(name) ? "\(name)=REDACTED" : String(item)
        }
        return url[..<questionMark] + "?" + items.joined(separator: "&")
    }

    private func isSecretQueryName(_ name: Substring) -> Bool {
        // Percent-decoding (Foundation, slow) only for names that are encoded.
        let decoded = name.contains("%") ? String(name).removingPercentEncoding ?? String(name) : String(name)
        return queryNames.contains(decoded.lowercased())
    }
}
