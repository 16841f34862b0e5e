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
        // A cancellation the outbox didn't ask for (a transport's own) is tried again later.
        case .cancelled, .noConnection, .timedOut, .connectionLost, .transport: self = .transient
        default:
            // 408 and 429 ask for later; 409 is a key still in flight (the Idempotency-Key draft);
            // 425 asks for a retry; 5xx is the server's own trouble.
            guard let status = error.status?.code else { self = .refused; return }
            self = [408, 409, 425, 429].contains(status) || status >= 500 ? .transient : .refused
        }
    }
}
