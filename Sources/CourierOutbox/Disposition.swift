import Courier

/// What a failed attempt means for its item.
enum Disposition: Equatable {
    /// The outbox is stopping (the call was cancelled): the item stays as it was.
    case stop
    /// Another user (or nobody) is signed in, or the user's session expired: wait for them.
    case awaitUser
    /// Worth sending again after a while.
    case transient
    /// Refused for good: park it.
    case refused

    init(of error: CourierError, stopping: Bool) {
        if stopping { self = .stop; return }
        switch error.kind {
        case .anotherUserSignedIn, .sessionExpired: self = .awaitUser
        default: self = TransientFailures.areWorthSendingLater(error) ? .transient : .refused
        }
    }
}
