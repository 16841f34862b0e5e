import AsyncHTTPClient
import Courier
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOHTTP2
import NIOHTTPCompression
import NIOSSL

extension AsyncHTTPClientTransport {
    /// Maps AsyncHTTPClient and SwiftNIO errors to `CourierError` kinds; a passed deadline gives
    /// the deadline's own error.
    static func map(_ error: any Error, limit: TimeLimit, host: String? = nil) -> CourierError {
        if let error = error as? HTTPClientError, error == .deadlineExceeded { return limit.error }
        var mapped = map(error)
        // A trust failure names the host it is about: what a developer needs to fix a pin or a root.
        if mapped.kind == .serverTrust, let host, !mapped.detail.contains(host) { mapped.detail = "\(host): " + mapped.detail }
        return mapped
    }

    /// Maps AsyncHTTPClient and SwiftNIO errors to `CourierError` kinds.
    static func map(_ error: any Error) -> CourierError {
        if let error = error as? CourierError { return error }
        if error is CancellationError { return CourierError(.cancelled, detail: "The call was cancelled", underlying: error) }
        if let error = error as? HTTPClientError {
            switch error {
            case .cancelled: return CourierError(.cancelled, detail: "The call was cancelled", underlying: error)
            case .connectTimeout: return CourierError(.timedOut, detail: "Connect timeout", underlying: error)
            case .deadlineExceeded, .readTimeout, .writeTimeout, .getConnectionFromPoolTimeout:
                return CourierError(.timedOut, detail: "Timed out: \(error)", underlying: error)
            case .remoteConnectionClosed:
                return CourierError(.connectionLost, detail: "The connection closed before the response was complete", underlying: error)
            case .bodyLengthMismatch:
                // AsyncHTTPClient raises it only for a request body that sends more or fewer bytes than announced.
                return CourierError(.invalidRequest, detail: "The request body's length differs from the length it announced", underlying: error)
            case .invalidURL, .emptyHost, .emptyScheme:
                return CourierError(.invalidRequest, detail: "Invalid URL: \(error)", underlying: error)
            default:
                return CourierError(.transport, detail: "AsyncHTTPClient: \(error)", underlying: error)
            }
        }
        if error is NIOConnectionError {
            return CourierError(.noConnection, detail: "Could not connect: \(error)", underlying: error)
        }
        if let error = error as? IOError {
            let kind = CourierError.kind(forErrno: error.errnoCode) ?? .transport
            return CourierError(kind, detail: "Socket error: \(String(cString: strerror(error.errnoCode))) (errno \(error.errnoCode))", underlying: error)
        }
        if let error = error as? ChannelError {
            switch error {
            case .connectTimeout: return CourierError(.timedOut, detail: "Connect timeout", underlying: error)
            case .ioOnClosedChannel, .eof, .alreadyClosed, .outputClosed:
                return CourierError(.connectionLost, detail: "The connection closed: \(error)", underlying: error)
            default: return CourierError(.transport, detail: "Channel error: \(error)", underlying: error)
            }
        }
        if let error = error as? NIOSSLError { return mapTLS(error) }
        if error is NIOHTTP2Errors.StreamClosed {
            return CourierError(.connectionLost, detail: "The server closed the HTTP/2 stream before the response was complete", underlying: error)
        }
        if let error = error as? NIOHTTPDecompression.DecompressionError {
            if error == .limit {
                return CourierError(.bodyTooLarge, detail: "The compressed body grew more than \(decompressionRatioLimit) times its size", underlying: error)
            }
            return CourierError(.invalidResponse, detail: "The compressed body can't be decoded: \(error)", underlying: error)
        }
        if error is NIOHTTPDecompression.ExtraDecompressionError {
            return CourierError(.invalidResponse, detail: "The compressed body can't be decoded: \(error)", underlying: error)
        }
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname || error == .serverHostnameImpossibleToMatch {
            return CourierError(.serverTrust, detail: "The server's certificate doesn't name the host: \(error)", underlying: error)
        }
        if let error = error as? HTTPParserError, error == .invalidEOFState {
            return CourierError(.connectionLost, detail: "The connection closed before the response was complete", underlying: error)
        }
        if error is HTTPParserError {
            return CourierError(.invalidResponse, detail: "The response is not valid HTTP: \(error)", underlying: error)
        }
        if let failure = NetworkFailure(error) {
            return CourierError(failure.kind, detail: "Network.framework: \(error)", underlying: error)
        }
        if error is SocketAddressError {
            return CourierError(.noConnection, detail: "The host name did not resolve: \(error)", underlying: error)
        }
        return CourierError.from(transportError: error)
    }
}
