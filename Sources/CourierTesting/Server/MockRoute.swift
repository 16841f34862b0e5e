/// A registered route: a method (or any), a path pattern and the handler that answers.
struct MockRoute: Sendable {
    /// The upper-cased method, or nil for any method.
    let method: String?
    /// The exact path, or a prefix when the pattern ended in `*`.
    let path: String
    /// Whether ``path`` is a prefix.
    let isPrefix: Bool
    /// Produces the response for a matching request.
    let handler: @Sendable (RecordedRequest) async -> MockResponse
    /// Whether the request's body is kept in its record; a sink keeps only its length and SHA-256.
    let keepsBody: Bool

    init(method: String?, pattern: String, keepsBody: Bool = true, handler: @escaping @Sendable (RecordedRequest) async -> MockResponse) {
        self.keepsBody = keepsBody
        self.method = method?.uppercased()
        self.isPrefix = pattern.hasSuffix("*")
        self.path = isPrefix ? String(pattern.dropLast()) : pattern
        self.handler = handler
    }

    /// Whether the route answers a request with this method and raw path.
    func matches(method: String, path: String) -> Bool {
        if let expected = self.method, expected != method { return false }
        return isPrefix ? path.hasPrefix(self.path) : path == self.path
    }
}
