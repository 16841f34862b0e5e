import Foundation

/// A write waiting in an ``Outbox``: what it will send, for whom, and how its sending went so far.
///
/// The request itself (its body, its header fields) stays in the outbox's files; an item is the
/// part an app lists and shows ("3 messages waiting", "1 failed: tap to retry").
public struct OutboxItem: Sendable, Hashable, Identifiable {
    /// An item's number, given at enqueue and never given again in the same outbox.
    public struct ID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
        /// The number.
        public let rawValue: Int64

        /// Wraps a number (one an app kept from ``OutboxItem/id``).
        public init(rawValue: Int64) { self.rawValue = rawValue }

        /// The number, as text.
        public var description: String { String(rawValue) }

        /// Whether `lhs` was enqueued before `rhs`.
        public static func < (lhs: ID, rhs: ID) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Where an item is in its life.
    public enum State: String, Sendable, Hashable, Codable {
        /// Waiting to be sent: not tried yet, backing off after a passing failure, or waiting for
        /// its user to be signed in.
        case waiting
        /// Refused for good (a `4xx` other than a passing one, a request that can't be built): kept,
        /// and holding back the rest of its group, until the app calls ``Outbox/retry(_:)`` or
        /// ``Outbox/discard(_:)``.
        case parked
    }

    /// What stopped a parked item, or the last passing failure of a waiting one.
    public struct Failure: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The identifier of the `CourierError.Kind` (`unacceptableStatus`, `server`, `noConnection`…).
        public var kind: String
        /// The response's status code, when one arrived.
        public var status: Int?
        /// The message the server put in its body, when it sent one.
        public var serverMessage: String?
        /// A technical detail, without secrets, for logs.
        public var detail: String

        /// The kind, the status and the server's message.
        public var description: String {
            var text = kind
            if let status { text += " (\(status))" }
            if let serverMessage { text += ": \(serverMessage)" }
            return text
        }
    }

    /// The item's number.
    public let id: ID
    /// The group it is sent in order within; `""` for the outbox's default group.
    public let group: String
    /// The endpoint's operation name.
    public let operationName: String
    /// The HTTP method.
    public let method: String
    /// The path and query, relative to the client's base URL.
    public let path: String
    /// The user it belongs to (`Credentials.identity`); nil when it is sent without
    /// credentials or the client has no `CredentialsMiddleware`.
    public let identity: String?
    /// Where it is in its life.
    public let state: State
    /// How many times it was sent without a final answer.
    public let attempts: Int
    /// The last failure: why it is parked, or the passing failure it waits after.
    public let lastFailure: Failure?
    /// When it was enqueued.
    public let enqueuedAt: Date
    /// The bytes it takes in the outbox (its body and request).
    public let size: Int64
}
