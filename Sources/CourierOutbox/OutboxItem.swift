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
        /// Waiting to be sent: not tried yet, backing off after a transient failure, or waiting for
        /// its user to be signed in.
        case waiting
        /// Held until the app calls ``Outbox/retry(_:)`` or ``Outbox/discard(_:)``, with the rest of
        /// its group behind it: refused for good, given up on, or unreadable (see ``Failure/Reason``).
        case parked
    }

    /// What stopped a parked item, or the last transient failure of a waiting one.
    ///
    /// It keeps the status and bounded excerpts (the server's message and the detail, 1 KiB each),
    /// which count against ``Outbox/Limits/maximumBytes`` with the item.
    public struct Failure: Sendable, Hashable, Codable, CustomStringConvertible {
        /// Why the failure holds the item back.
        public enum Reason: String, Sendable, Hashable, Codable {
            /// A transient failure: the item waits and is sent again.
            case transient
            /// The server refused the write for good, or redirected it where it can't follow
            /// (see ``Outbox``): the item is parked.
            case refused
            /// Transient failures went on past the give-up bound (``Outbox/Backoff/maximumTransientFailures``,
            /// ``Outbox/Backoff/maximumAge``): the item is parked.
            case gaveUp
            /// The item's stored row can't be read (written by another version of the app, or
            /// damaged on disk): the item is parked, its bytes kept as they are.
            case unreadable
        }

        /// The identifier of the `CourierError.Kind` (`unacceptableStatus`, `server`, `noConnection`…).
        public var kind: String
        /// Why the failure holds the item back.
        public var reason: Reason
        /// The response's status code, when one arrived.
        public var status: Int?
        /// The message the server put in its body, when it sent one (its first 1 KiB).
        public var serverMessage: String?
        /// A technical detail, without secrets, for logs (its first 1 KiB).
        public var detail: String

        /// How many bytes of the server's message and of the detail a failure keeps.
        static let excerptLimit = 1024

        init(kind: String, reason: Reason, status: Int? = nil, serverMessage: String? = nil, detail: String) {
            self.kind = kind
            self.reason = reason
            self.status = status
            self.serverMessage = serverMessage.map(Self.excerpt)
            self.detail = Self.excerpt(detail)
        }

        /// Decodes a failure kept by any version: one without a reason was a refusal.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            kind = try container.decode(String.self, forKey: .kind)
            reason = (try? container.decodeIfPresent(Reason.self, forKey: .reason)) ?? .refused
            status = try container.decodeIfPresent(Int.self, forKey: .status)
            serverMessage = try container.decodeIfPresent(String.self, forKey: .serverMessage)
            detail = try container.decode(String.self, forKey: .detail)
        }

        /// At most ``excerptLimit`` bytes of `text`, cut between characters' scalars.
        private static func excerpt(_ text: String) -> String {
            guard text.utf8.count > excerptLimit else { return text }
            var bytes = 0
            let kept = text.unicodeScalars.prefix { scalar in
                bytes += scalar.utf8.count
                return bytes <= excerptLimit - 3
            }
            return String(String.UnicodeScalarView(kept)) + "…"
        }

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
    /// The `Idempotency-Key` every attempt sends, fixed at enqueue: what the server matches a write
    /// it already applied by, and what the app reconciles with.
    public let idempotencyKey: String?
    /// The user it belongs to (`Credentials.identity`); nil when it is sent without
    /// credentials or the client has no `CredentialsMiddleware`.
    public let identity: String?
    /// Where it is in its life.
    public let state: State
    /// How many times the outbox sent it without a final answer (a failed connection included).
    /// Each send may take several transport calls below the outbox (`Response.attempts` counts those).
    public let sends: Int
    /// The last failure: why it is parked, or the transient failure it waits after.
    public let lastFailure: Failure?
    /// When it was enqueued.
    public let enqueuedAt: Date
    /// The bytes it takes in the outbox (its body, its request and its kept failure).
    public let size: Int64
}
