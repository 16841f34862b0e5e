import Foundation
import OpenAPIRuntime

/// A streamed request body as the `InputStream` URLSession reads, with why it failed, if it did.
protocol BodyStream: AnyObject {
    /// The stream URLSession reads.
    var input: InputStream { get }
    /// Why the body ended early, if it did.
    var failure: (any Error)? { get }
    /// Stops reading the body.
    func close()
}

extension BodyInputStream: BodyStream {
    var input: InputStream { self }
}

/// Makes the stream for `body` that this platform's URLSession can read: a bound stream pair on
/// Apple platforms, an `InputStream` subclass for FoundationNetworking (which only opens, reads and
/// closes it).
func makeBodyStream(_ body: HTTPBody, onFailure: @escaping @Sendable () -> Void) -> any BodyStream {
    #if canImport(Darwin)
    if let stream = BoundBodyStream(body, onFailure: onFailure) { return stream }
    #endif
    return BodyInputStream(body)
}
