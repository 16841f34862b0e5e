import Courier
import Foundation
import HTTPTypes

/// Fields of a thread that ``ThreadRequest/update(threadID:changes:)`` may change; nil fields are not sent.
public struct ThreadChanges: Codable, Sendable, Hashable {
    /// A new title.
    public var title: String?
    /// Whether the thread is read-only.
    public var readOnly: Bool?

    /// Creates a change set.
    public init(title: String? = nil, readOnly: Bool? = nil) {
        self.title = title
        self.readOnly = readOnly
    }
}

/// RocketChat-style thread actions as one enum: each case maps to a method, path and parameters.
///
/// The responses are loosely specified, so they decode into ``JSON`` and are read with typed accessors.
public enum ThreadRequest: Endpoint {
    /// The decoded value of a successful call.
    public typealias Response = JSON

    /// Adds members to a thread.
    case addMembers(threadID: String, members: [String])
    /// Loads messages missed since a time, at most `limit`.
    case loadMissed(threadID: String, since: Date, limit: Int)
    /// Deletes a thread.
    case delete(threadID: String)
    /// Changes a thread's fields.
    case update(threadID: String, changes: ThreadChanges)

    /// The HTTP method of this action.
    public var method: HTTPRequest.Method {
        switch self {
        case .loadMissed: .get
        case .addMembers, .delete, .update: .post
        }
    }

    /// The path, with interpolated values escaped.
    public var path: EndpointPath {
        switch self {
        case .addMembers: "/api/v1/threads.addMembers"
        case .loadMissed: "/api/v1/threads.missed"
        case .delete: "/api/v1/threads.delete"
        case .update: "/api/v1/threads.update"
        }
    }

    /// The parameters, placed by method.
    public var parameters: Parameters {
        switch self {
        case .addMembers(let threadID, let members):
            ["threadId": threadID, "members": members]
        case .loadMissed(let threadID, let since, let limit):
            ["threadId": threadID, "since": since, "limit": limit]
        case .delete(let threadID):
            ["threadId": threadID]
        case .update(let threadID, let changes):
            .encodable(ThreadUpdateBody(threadId: threadID, changes: changes))
        }
    }
}

/// The body of `threads.update`: the thread id and the changed fields.
struct ThreadUpdateBody: Encodable, Sendable {
    var threadId: String
    var changes: ThreadChanges
}

extension Client {
    /// A client for a RocketChat-style server that signs every request with `X-Auth-Token` and `X-User-Id`.
    public static func rocketChat(baseURL: URL, credentials: CredentialStore, transport: any ClientTransport = URLSessionTransport()) -> Client {
        Client(baseURL: baseURL, transport: transport, middlewares: [CredentialsMiddleware(provider: credentials)])
    }
}
