import Courier
import Foundation
#if canImport(Network)
import AsyncHTTPClient
import Network
#endif

/// A failure as Network.framework reports it (AsyncHTTPClient's event loop group on Apple
/// platforms), reduced to its domain and code so that its mapping is plain code every platform
/// compiles and tests.
package enum NetworkFailure: Sendable, Hashable {
    /// A socket failure, by `errno` (`NWError.posix`, AsyncHTTPClient's `NWPOSIXError`).
    case posix(Int32)
    /// A name look-up failure, by `DNSServiceErrorType` (`NWError.dns`).
    case dns(Int32)
    /// A TLS failure, by `OSStatus` (`NWError.tls`, AsyncHTTPClient's `NWTLSError`).
    case tls(Int32)

    /// Courier's kind: refused, unreachable and DNS failures are no connection; a reset or aborted
    /// connection is a lost one.
    package var kind: CourierError.Kind {
        switch self {
        case .posix(let code): CourierError.kind(forErrno: code) ?? .transport
        case .dns: .noConnection
        case .tls: .transport
        }
    }

    /// Whether the connection closed under the request (the stale-connection resend applies).
    package var isClosedBeforeAnswering: Bool {
        if case .posix(let code) = self { CourierError.kind(forErrno: code) == .connectionLost } else { false }
    }

    /// The failure `error` carries, if it is one of Network.framework's; always nil without it.
    package init?(_ error: any Error) {
        #if canImport(Network)
        switch error {
        case let error as HTTPClient.NWPOSIXError: self = .posix(error.errorCode.rawValue)
        case let error as HTTPClient.NWTLSError: self = .tls(error.status)
        // A failed connect reaches the pool untranslated on a plain-HTTP channel.
        case let error as NWError:
            switch error {
            case .posix(let code): self = .posix(code.rawValue)
            case .dns(let code): self = .dns(code)
            case .tls(let status): self = .tls(status)
            @unknown default: return nil
            }
        default: return nil
        }
        #else
        return nil
        #endif
    }
}
