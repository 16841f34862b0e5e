import Foundation
import OpenAPIRuntime

/// An `HTTPBody` as the `InputStream` FoundationNetworking's URLSession (Linux) reads a streamed
/// request body from; Apple's URLSession gets a ``BoundBodyStream`` instead.
///
/// FoundationNetworking only opens, reads and closes it, synchronously, on its own thread; a task on ``ThreadExecutor/bodyReader`` reads the body ahead
/// of it into a small buffer (at most ``ReadAhead/limit`` bytes), so a read waits only when the body
/// itself is slower than the network. Only bodies that need nothing else to run (files, forms,
/// bytes) are streamed this way: see ``URLSessionTransport``. A body that fails (a file that shrank) ends the stream with an error,
/// kept in ``failure`` so the transport reports it rather than URLSession's generic one.
final class BodyInputStream: InputStream {
    private let buffer = ReadAhead()
    private let body: HTTPBody

    init(_ body: HTTPBody) {
        self.body = body
        super.init(data: Data())
    }

    /// Why the body ended early, if it did.
    var failure: (any Error)? { buffer.failure }

    override func open() { buffer.start(body) }
    override func close() { buffer.close() }
    override var streamStatus: Stream.Status { buffer.status }
    override var streamError: (any Error)? { buffer.failure }
    override var hasBytesAvailable: Bool { buffer.status == .open }

    override func read(_ destination: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
        buffer.read(into: destination, maxLength: maxLength)
    }

    override func getBuffer(_ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length: UnsafeMutablePointer<Int>) -> Bool {
        false
    }
}
