import Foundation

/// The in-memory data of the sample social network: users, friendships, tokens, bound phones.
struct SocialState: Sendable {
    var users: [Int: User] = [
        1: User(id: 1, name: "Ann", city: "Paris"),
        2: User(id: 2, name: "Ben", city: "Berlin"),
        3: User(id: 3, name: "Chloé", city: "Paris"),
        4: User(id: 4, name: "Dan"),
        5: User(id: 5, name: "Eve", city: "Berlin"),
    ]
    var friends: [Int: [Int]] = [1: [2, 3], 2: [1], 3: [1]]
    var passwords = ["ann": (1, "secret"), "ben": (2, "hunter2")]
    /// Valid access tokens and their user.
    var accessTokens: [String: Int] = [:]
    /// Valid refresh tokens and their user.
    var refreshTokens: [String: Int] = [:]
    var boundPhones: Set<String> = ["+33600000000"]
    var issued = 0
    var feedVersion = 1
    /// Posted messages in the order they were applied, and each `Idempotency-Key`'s first answer.
    var messages: [String] = []
    var answers: [String: String] = [:]

    mutating func issueTokens(for userID: Int) -> (access: String, refresh: String) {
        issued += 1
        let access = "access-\(userID)-\(issued)"
        let refresh = "refresh-\(userID)-\(issued)"
        accessTokens[access] = userID
        refreshTokens[refresh] = userID
        return (access, refresh)
    }
}
