// The families a UI acts on and the kinds of failure, one per stage that can fail.
extension CourierError {
    /// What a UI can do about an error: three families.
    public enum Family: Sendable, Hashable {
        /// The device is offline, the host is unreachable or its name did not resolve.
        case noConnection
        /// The server reported an error in its body; ``CourierError/serverMessage`` holds its text.
        case server
        /// Anything else: a server crash, a timeout, a bad payload, a cancelled call.
        case other
    }

    /// The precise stage or reason of a failure.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// The stable, short name ``description`` gives.
        package let identifier: String
        private init(_ identifier: String) { self.identifier = identifier }

        /// Offline, DNS failure, connection refused or host unreachable.
        public static let noConnection = Kind("noConnection")
        /// The request (or one attempt of it) took longer than its timeout.
        public static let timedOut = Kind("timedOut")
        /// The call was cancelled by its caller.
        public static let cancelled = Kind("cancelled")
        /// The connection broke while the request was in flight: reset, closed early, truncated body.
        public static let connectionLost = Kind("connectionLost")
        /// A non-2xx status whose body carried a message from the server.
        public static let server = Kind("server")
        /// A non-2xx status without a usable message in the body.
        public static let unacceptableStatus = Kind("unacceptableStatus")
        /// The request could not be built: a bad path, query or body.
        public static let invalidRequest = Kind("invalidRequest")
        /// The body could not be decoded into the endpoint's response type.
        public static let decodingFailed = Kind("decodingFailed")
        /// A 2xx response whose envelope (`{code, msg}`, `{status, message}`) reported an error.
        public static let envelope = Kind("envelope")
        /// The client's response validator (extended error hook) turned a 2xx into a failure.
        public static let rejected = Kind("rejected")
        /// The response body was larger than the configured limit.
        public static let bodyTooLarge = Kind("bodyTooLarge")
        /// The response could not be understood as HTTP.
        public static let invalidResponse = Kind("invalidResponse")
        /// Credentials were refused and could not be refreshed: the user must sign in again.
        public static let sessionExpired = Kind("sessionExpired")
        /// A redirect could not be followed: a loop, too many hops, a missing or unusable
        /// `Location`, or a request body that could be sent only once.
        public static let redirect = Kind("redirect")
        /// The next page of a collection could not be followed: its link led to another origin or
        /// outside the client's base URL, or the links came round to a page already seen.
        public static let pagination = Kind("pagination")
        /// The server's certificate was not trusted: its chain didn't lead to a trusted root, it
        /// didn't name the host, it had expired, or none of its certificates matched the host's pins
        /// (see ``ServerTrust``). Never retried.
        public static let serverTrust = Kind("serverTrust")
        /// Any other failure of the transport.
        public static let transport = Kind("transport")
        /// A file could not be read or written: a download's folder is missing or not writable, the disk is full.
        public static let file = Kind("file")

        /// A call made for one user (an outbox's write) while another one (or nobody) is signed in: it was not sent.
        package static let anotherUserSignedIn = Kind("anotherUserSignedIn")
        /// A stable, short name, safe to use as a metric label: `noConnection`, `timedOut`…
        public var description: String { identifier }
    }
}
