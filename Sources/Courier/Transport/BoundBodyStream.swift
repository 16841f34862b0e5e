#if canImport(Darwin)
import Foundation
import OpenAPIRuntime

/// A streamed request body as Apple's URLSession takes one: the input end of a bound stream pair,
/// whose output end a ``BodyPump`` fills as URLSession reads, driven by the stream's own events.
///
/// URLSession schedules its body stream on run loops through private API that an `InputStream`
/// subclass does not implement (such subclasses have crashed it), so Apple platforms never get
/// ``BodyInputStream``.
// @unchecked: after init, the output stream and the pump are only used on `queue`, where the
// stream delivers its events.
final class BoundBodyStream: NSObject, StreamDelegate, BodyStream, BodySink, @unchecked Sendable {
    let input: InputStream
    private let output: OutputStream
    private let buffer = ReadAhead()
    private let queue = DispatchQueue(label: "courier.upload-body")
    private var pump: BodyPump?

    /// Starts reading `body` ahead; `onFailure` stops the upload if the body fails.
    init?(_ body: HTTPBody, onFailure: @escaping @Sendable () -> Void) {
        var input: InputStream?
        var output: OutputStream?
        Stream.getBoundStreams(withBufferSize: BodyPump.chunkSize, inputStream: &input, outputStream: &output)
        guard let input, let output else { return nil }
        self.input = input
        self.output = output
        super.init()
        pump = BodyPump(source: buffer, sink: self, queue: queue, onFailure: onFailure)
        output.delegate = self
        CFWriteStreamSetDispatchQueue(output as CFWriteStream, queue)
        buffer.start(body)
        output.open()
    }

    var failure: (any Error)? { buffer.failure }

    func close() {
        buffer.close()
        queue.async { [self] in
            pump?.stop()
            output.delegate = nil
            output.close()
        }
    }

    func stream(_ stream: Stream, handle event: Stream.Event) {
        switch event {
        case .hasSpaceAvailable: pump?.spaceBecameAvailable()
        case .errorOccurred, .endEncountered: pump?.stop()
        default: break
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard let base = bytes.bindMemory(to: UInt8.self).baseAddress, output.streamStatus == .open else { return 0 }
        return output.write(base, maxLength: bytes.count)
    }

    var hasSpaceAvailable: Bool { output.hasSpaceAvailable }

    func endBody() { output.close() }
}
#endif
