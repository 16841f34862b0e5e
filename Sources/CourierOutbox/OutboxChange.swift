import Courier
import Foundation

/// Something that happened to an item of an ``Outbox``, in the order it happened.
public enum OutboxChange: Sendable {
    /// The item was committed to disk.
    case enqueued(OutboxItem)
    /// The item is being sent.
    case sending(OutboxItem)
    /// The server accepted it, and it left the outbox. Decode the body with ``OutboxDelivery/decoded(as:)``.
    case sent(OutboxItem, OutboxDelivery)
    /// A transient failure (no connection, a timeout, `5xx`, `429`, `408`, `409`): the item is sent
    /// again after `retryAfter` (the server's `Retry-After` when it is longer than the backoff).
    case willRetry(OutboxItem, CourierError, retryAfter: Duration)
    /// Refused for good, given up on, or unreadable (the item's ``OutboxItem/lastFailure`` says
    /// which): the item is kept and holds back its group (``Outbox/retry(_:)``, ``Outbox/discard(_:)``).
    case parked(OutboxItem, CourierError)
    /// The app removed the item (``Outbox/discard(_:)``, ``Outbox/clear(identity:)``).
    case discarded(OutboxItem)
    /// The outbox's files could not be read or written (a full disk, a damaged database): what
    /// needed them waits and is tried again with backoff. Sent once per run of failures, like the
    /// outbox's log line; ``storageWorksAgain`` ends the run.
    case storageFailed(OutboxError)
    /// The outbox's files work again after ``storageFailed(_:)``.
    case storageWorksAgain

    /// The item the change is about; nil for a change of the outbox's storage.
    public var item: OutboxItem? {
        switch self {
        case .enqueued(let item), .sending(let item), .sent(let item, _), .willRetry(let item, _, _), .parked(let item, _),
            .discarded(let item):
            item
        case .storageFailed, .storageWorksAgain:
            nil
        }
    }
}

/// A server's answer to an item that was sent: the response, and its body decoded on demand.
///
/// An item outlives the process that enqueued it, and with it the endpoint's type; the app names
/// the type it expects when it reads the answer.
public struct OutboxDelivery: Sendable {
    /// The response: status, header fields, the raw body, attempts and timing.
    public let response: Response<Data>
    let decoder: any ResponseDecoder

    /// The body decoded with the client's decoder.
    /// - Throws: a `CourierError` of kind `decodingFailed` when the body is not a `T`.
    public func decoded<T: Decodable>(as type: T.Type) throws(CourierError) -> T {
        do {
            return try decoder.decode(T.self, from: response.value)
        } catch {
            throw CourierError(.decodingFailed, detail: "The answer to a kept write is not a \(T.self): \(error)", underlying: error)
        }
    }
}
