import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension CourierError {
    /// Turns any error thrown below the client (transport, middleware, cancellation) into a `CourierError`.
    ///
    /// Transports shipped with Courier already throw `CourierError`; this maps the rest: Swift
    /// cancellation, `URLError` (from any URLSession-based transport) and POSIX socket errors.
    public static func from(transportError error: any Error) -> CourierError {
        if let error = error as? CourierError { return error }
        if error is CancellationError { return CourierError(.cancelled, detail: "The call was cancelled", underlying: error) }
        if let error = error as? URLError { return from(urlError: error) }
        if let error = error as? POSIXError, let kind = kind(forErrno: error.code.rawValue) {
            return CourierError(kind, detail: "Socket error: \(error.code)", underlying: error)
        }
        return CourierError(.transport, detail: String(describing: error), underlying: error)
    }

    /// Maps a `URLError` code to its kind: offline and DNS to no connection, timeouts, cancellation, lost connection.
    static func from(urlError: URLError) -> CourierError {
        let kind: Kind
        switch urlError.code {
        case .notConnectedToInternet, .cannotFindHost, .cannotConnectToHost, .dnsLookupFailed,
            .internationalRoamingOff, .dataNotAllowed, .callIsActive:
            kind = .noConnection
        case .timedOut: kind = .timedOut
        case .cancelled: kind = .cancelled
        case .networkConnectionLost, .cannotParseResponse, .zeroByteResource:
            kind = .connectionLost
        case .badServerResponse: kind = .invalidResponse
        case .badURL, .unsupportedURL: kind = .invalidRequest
        case .dataLengthExceedsMaximum: kind = .bodyTooLarge
        // FoundationNetworking on Linux reports a body cut short (curl's "transfer closed with N
        // bytes remaining") as an unknown error; only its text tells it apart.
        case .unknown where urlError.localizedDescription.contains("transfer closed"): kind = .connectionLost
        default: kind = .transport
        }
        return CourierError(kind, detail: "URLError \(urlError.code.rawValue): \(urlError.localizedDescription)", underlying: urlError)
    }

    /// The kind for a socket `errno`, or nil when it is not a connectivity failure.
    public static func kind(forErrno code: Int32) -> Kind? {
        switch code {
        case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, ENETDOWN, EHOSTDOWN, EADDRNOTAVAIL: .noConnection
        case ECONNRESET, EPIPE, ECONNABORTED: .connectionLost
        case ETIMEDOUT: .timedOut
        default: nil
        }
    }
}
