import Courier

/// Why an ``Outbox`` refused something an app asked of it.
public enum OutboxError: Error, Sendable, CustomStringConvertible {
    /// The outbox holds as many items or bytes as its ``Outbox/Limits`` allow: nothing was added.
    case full(Outbox.Limits)
    /// Only writes are kept: POST, PUT, PATCH and DELETE (a read is of no use later).
    case notAWrite(method: String)
    /// The endpoint's request can't be built or kept (a bad path, a secret in its query).
    case invalidRequest(CourierError)
    /// The outbox's files could not be read or written (a full disk, a folder that can't be made).
    case storage(String)
    /// No item has this number: it was sent, discarded or cleared.
    case noSuchItem(OutboxItem.ID)
    /// Another ``Outbox`` (in this process or another: an app and its extension) has the folder
    /// open; one folder has one outbox at a time, until it stops.
    case folderInUse(String)

    /// What went wrong, without secrets.
    public var description: String {
        switch self {
        case .full(let limits):
            "The outbox is full (at most \(limits.maximumItems) items and \(limits.maximumBytes) bytes)"
        case .notAWrite(let method): "An outbox keeps writes (POST, PUT, PATCH, DELETE), not \(method)"
        case .invalidRequest(let error): "The request can't be kept: \(error)"
        case .storage(let detail): "The outbox's storage failed: \(detail)"
        case .noSuchItem(let id): "The outbox has no item \(id)"
        case .folderInUse(let folder): "Another outbox has the folder \(folder) open"
        }
    }
}
