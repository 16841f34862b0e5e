import CZlib
import Foundation
import OpenAPIRuntime

/// gzip (RFC 1952) for request bodies, through the system's zlib: in one go for bytes in memory,
/// chunk by chunk for files, forms and streams (never the whole body in memory).
enum Gzip {
    /// `data` compressed into one gzip member.
    static func compress(_ data: Data) throws(CourierError) -> Data {
        let deflater = try Deflater()
        var output = try deflater.deflate(ArraySlice(data), finish: false)
        output += try deflater.deflate([], finish: true)
        return Data(output)
    }

    /// `body` compressed as it is read, with an unknown length; iterable as often as `body` is.
    static func compress(_ body: HTTPBody) -> HTTPBody {
        HTTPBody(Chunks(source: body), length: .unknown, iterationBehavior: body.iterationBehavior)
    }

    /// The compressed chunks of a body: each iteration starts a new gzip member over a new
    /// iteration of the source (a retried file upload compresses the file again).
    struct Chunks: AsyncSequence, Sendable {
        typealias Element = ArraySlice<UInt8>
        let source: HTTPBody

        func makeAsyncIterator() -> Iterator { Iterator(source: source.makeAsyncIterator()) }

        struct Iterator: AsyncIteratorProtocol {
            var source: HTTPBody.AsyncIterator
            var deflater: Deflater?
            var finished = false

            mutating func next() async throws -> ArraySlice<UInt8>? {
                if deflater == nil { deflater = try Deflater() }
                guard let deflater else { return nil }
                while !finished {
                    guard let chunk = try await source.next() else {
                        finished = true
                        return ArraySlice(try deflater.deflate([], finish: true))
                    }
                    let output = try deflater.deflate(chunk, finish: false)
                    // zlib holds small inputs back until it has a block's worth: ask for more.
                    if !output.isEmpty { return ArraySlice(output) }
                }
                return nil
            }
        }
    }

    /// One zlib deflate stream writing the gzip format; ended when released.
    final class Deflater {
        private let stream: UnsafeMutablePointer<z_stream>

        init() throws(CourierError) {
            stream = .allocate(capacity: 1)
            stream.initialize(to: z_stream())
            // Window bits 15 + 16: zlib writes a gzip header and trailer instead of zlib's own.
            let status = deflateInit2_(
                stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
                Int32(MemoryLayout<z_stream>.size))
            guard status == Z_OK else {
                stream.deinitialize(count: 1)
                stream.deallocate()
                throw CourierError(.invalidRequest, detail: "zlib could not start a gzip stream (status \(status))")
            }
        }

        deinit {
            deflateEnd(stream)
            stream.deinitialize(count: 1)
            stream.deallocate()
        }

        /// Compresses `input`, returning what zlib has ready; `finish` ends the member (trailer included).
        func deflate(_ input: some Collection<UInt8>, finish: Bool) throws(CourierError) -> [UInt8] {
            var input = Array(input)
            var output: [UInt8] = []
            let flush = finish ? Z_FINISH : Z_NO_FLUSH
            var outcome: Int32 = Z_OK
            input.withUnsafeMutableBufferPointer { source in
                stream.pointee.next_in = source.baseAddress
                stream.pointee.avail_in = uInt(source.count)
                var buffer = [UInt8](repeating: 0, count: 64 << 10)
                repeat {
                    buffer.withUnsafeMutableBufferPointer { target in
                        stream.pointee.next_out = target.baseAddress
                        stream.pointee.avail_out = uInt(target.count)
                        outcome = CZlib.deflate(stream, flush)
                        output += target.prefix(target.count - Int(stream.pointee.avail_out))
                    }
                    // Output room ran out: zlib has more to give for this input.
                } while (outcome == Z_OK && stream.pointee.avail_out == 0) || (finish && outcome == Z_OK)
                stream.pointee.next_in = nil
            }
            guard outcome == Z_OK || outcome == Z_STREAM_END || outcome == Z_BUF_ERROR else {
                throw CourierError(.invalidRequest, detail: "zlib failed to compress the body (status \(outcome))")
            }
            return output
        }
    }
}
