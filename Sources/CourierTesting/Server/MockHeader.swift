/// One header line of a ``MockResponse``; a list of them may repeat a name (two `Set-Cookie` lines).
public struct MockHeader: Sendable, Hashable {
    /// The field name, sent as written.
    public var name: String
    /// The field value, sent as written.
    public var value: String

    /// Creates a header line.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

extension [MockHeader] {
    /// Whether a header with this name (compared case-insensitively) is in the list.
    func contains(name: String) -> Bool {
        contains { $0.name.lowercased() == name.lowercased() }
    }
}
