/// A user of the sample social network (a plain model decoded from JSON).
public struct User: Codable, Sendable, Hashable, Identifiable {
    /// The user's id.
    public var id: Int
    /// The display name.
    public var name: String
    /// The city the user lives in, if shared.
    public var city: String?

    /// Creates a user.
    public init(id: Int, name: String, city: String? = nil) {
        self.id = id
        self.name = name
        self.city = city
    }
}
