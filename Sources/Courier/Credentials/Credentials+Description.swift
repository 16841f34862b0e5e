/// Credentials print, interpolate, reflect and `dump` with every header value and the refresh
/// token replaced: a log line, a crash report or a debugger shows who, never the token.
extension Credentials: CustomStringConvertible, CustomReflectable {
    /// The identity, the header names and whether there is a refresh token; no secret value.
    public var description: String {
        "Credentials(identity: \(identity), headers: [\(redactedHeaders.joined(separator: ", "))], refreshToken: \(refreshToken == nil ? "nil" : "REDACTED"))"
    }

    /// The same parts as ``description``, for `dump` and debuggers.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: ["identity": identity, "headers": redactedHeaders, "refreshToken": refreshToken.map { _ in "REDACTED" } as Any],
            displayStyle: .struct)
    }

    /// Every field of credentials authenticates: each is shown by name only.
    private var redactedHeaders: [String] {
        headers.map { "\($0.name): REDACTED" }
    }
}

extension CredentialStore: CustomStringConvertible, CustomReflectable {
    /// Who is signed in, if anyone; no secret value.
    public var description: String {
        credentials.map { "CredentialStore(signed in: \($0.identity))" } ?? "CredentialStore(signed out)"
    }

    /// The credentials as they describe themselves (see ``Credentials/customMirror``).
    public var customMirror: Mirror {
        Mirror(self, children: ["credentials": credentials as Any], displayStyle: .class)
    }
}
