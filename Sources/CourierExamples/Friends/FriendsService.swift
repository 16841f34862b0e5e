import Courier

/// Loads, adds, removes and groups a user's friends: the `FriendsService` of the source article.
///
/// A service is a plain struct over a ``Client``; it hides paths and models behind named operations.
public struct FriendsService: Sendable {
    /// The client of the backend that owns friendships.
    public let client: Client

    /// Creates the service over a client.
    public init(client: Client) { self.client = client }

    /// The friends of a user, at most `limit` when given.
    public func friends(of userID: Int, limit: Int? = nil) async throws(CourierError) -> [User] {
        try await client.send(FriendsEndpoints.List(userID: userID, limit: limit))
    }

    /// Makes `friendID` a friend of `userID`.
    public func add(friend friendID: Int, to userID: Int) async throws(CourierError) {
        _ = try await client.send(FriendsEndpoints.Add(userID: userID, friendID: friendID))
    }

    /// Ends the friendship between `userID` and `friendID`.
    public func remove(friend friendID: Int, from userID: Int) async throws(CourierError) {
        _ = try await client.send(FriendsEndpoints.Remove(userID: userID, friendID: friendID))
    }

    /// The friends of a user grouped by city (friends without one under "Elsewhere"), names sorted.
    public func friendsByCity(of userID: Int) async throws(CourierError) -> [String: [User]] {
        let friends = try await friends(of: userID)
        return Dictionary(grouping: friends.sorted { $0.name < $1.name }) { $0.city ?? "Elsewhere" }
    }
}
