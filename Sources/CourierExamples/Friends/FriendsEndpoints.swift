import Courier
import HTTPTypes

/// The friends resource of one user: `/users/{id}/friends`.
public enum FriendsEndpoints {
    /// `GET /users/{id}/friends?limit=…`: the user's friends.
    public struct List: Endpoint {
        /// The decoded value of a successful call.
        public typealias Response = [User]
        /// Whose friends.
        public var userID: Int
        /// At most this many.
        public var limit: Int?
        /// Creates the request.
        public init(userID: Int, limit: Int? = nil) {
            self.userID = userID
            self.limit = limit
        }
        /// The path, with interpolated values escaped.
        public var path: EndpointPath { "/users/\(userID)/friends" }
        /// The parameters, placed by method.
        public var parameters: Parameters { ["limit": limit] }
    }

    /// `POST /users/{id}/friends` with `{"friendId": …}`: befriends another user.
    public struct Add: Endpoint {
        /// The decoded value of a successful call.
        public typealias Response = Empty
        /// Who adds.
        public var userID: Int
        /// Who is added.
        public var friendID: Int
        /// Creates the request.
        public init(userID: Int, friendID: Int) {
            self.userID = userID
            self.friendID = friendID
        }
        /// The HTTP method of this action.
        public var method: HTTPRequest.Method { .post }
        /// The path, with interpolated values escaped.
        public var path: EndpointPath { "/users/\(userID)/friends" }
        /// The parameters, placed by method.
        public var parameters: Parameters { ["friendId": friendID] }
    }

    /// `DELETE /users/{id}/friends/{friendId}`: ends a friendship.
    public struct Remove: Endpoint {
        /// The decoded value of a successful call.
        public typealias Response = Empty
        /// Who removes.
        public var userID: Int
        /// Who is removed.
        public var friendID: Int
        /// Creates the request.
        public init(userID: Int, friendID: Int) {
            self.userID = userID
            self.friendID = friendID
        }
        /// The HTTP method of this action.
        public var method: HTTPRequest.Method { .delete }
        /// The path, with interpolated values escaped.
        public var path: EndpointPath { "/users/\(userID)/friends/\(friendID)" }
    }
}
