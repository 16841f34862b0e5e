import CZlib
import Courier
import Foundation
import OpenAPIRuntime

/// Decodes a gzip or deflate response body as it is read, through the system's zlib, in pieces of
/// at most 64 KiB, within a ratio limit: a decompression bomb fails with `bodyTooLarge` after a
/// few MB, corrupt or truncated bytes with `invalidResponse`.
enum ContentDecoding {
    /// The codings decoded: `gzip` (and its old name `x-gzip`) and `deflate`; nil for any other
    /// value (several codings, `br`, `identity`), whose body passes as it is.
    static func coding(of contentEncoding: String?) -> Inflater.Format? {
        switch contentEncoding?.trimmingCharacters(in: .whitespaces).lowercased() {
        case "gzip", "x-gzip": .gzip
        case "deflate": .deflate
        default: nil
        }
    }

    /// `body` decoded from `format`, at most `ratioLimit` times its compressed size (past the first MiB).
    static func decoded(_ body: HTTPBody, format: Inflater.Format, ratioLimit: Int) -> HTTPBody {
        HTTPBody(Chunks(source: body, format: format, ratioLimit: ratioLimit), length: .unknown, iterationBehavior: body.iterationBehavior)
    }

    struct Chunks: AsyncSequence, Sendable {
        typealias Element = ArraySlice<UInt8>
        let source: HTTPBody
        let format: Inflater.Format
        let ratioLimit: Int

        func makeAsyncIterator() -> Iterator { Iterator(source: source.makeAsyncIterator(), format: format, ratioLimit: ratioLimit) }

        struct Iterator: AsyncIteratorProtocol {
            var source: HTTPBody.AsyncIterator
            let format: Inflater.Format
            let ratioLimit: Int
            var inflater: Inflater?
            var sourceEnded = false

            mutating func next() async throws -> ArraySlice<UInt8>? {
                if inflater == nil { inflater = try Inflater(format: format, ratioLimit: ratioLimit) }
                guard let inflater else { return nil }
                while true {
                    let output = try inflater.inflate()
                    if !output.isEmpty { return output[...] }
                    if sourceEnded {
                        // No bytes at all is an empty body, not a broken one.
                        guard inflater.isComplete || inflater.isEmpty else {
                            throw CourierError(.invalidResponse, detail: "The compressed body ended before its end")
                        }
                        return nil
                    }
                    if let chunk = try await source.next() { inflater.feed(chunk) } else { sourceEnded = true }
                }
            }
        }
    }
}

/// One zlib inflate stream over the input fed to it; ended when released.
final class Inflater {
    /// The compressed formats of HTTP's content codings.
    enum Format: Sendable {
        /// RFC 1952; several members in a row are one body.
        case gzip
        /// RFC 9110's `deflate`: the zlib format (RFC 1950), or the raw deflate data some servers send instead.
        case deflate
    }

    /// The most produced by one ``inflate()``.
    static let outputPiece = 64 << 10
    /// Output allowed before the ratio limit applies: a small body may compress very well.
    static let ratioFloor = 1 << 20

    private let stream: UnsafeMutablePointer<z_stream>
    private let format: Format
    private let ratioLimit: Int
    private var input: [UInt8] = []
    private var offset = 0
    private var started = false
    private var memberEnded = false
    private var compressedBytes = 0
    private var decodedBytes = 0

    init(format: Format, ratioLimit: Int) throws(CourierError) {
        self.format = format
        self.ratioLimit = ratioLimit
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        try start(windowBits: format == .gzip ? 15 + 16 : 15)
    }

    deinit {
        inflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    private func start(windowBits: Int32) throws(CourierError) {
        let status = inflateInit2_(stream, windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw CourierError(.invalidResponse, detail: "zlib could not start decoding (status \(status))") }
    }

    /// Whether every byte fed so far ended a complete stream.
    var isComplete: Bool { memberEnded && offset == input.count }

    /// Whether nothing was fed yet.
    var isEmpty: Bool { compressedBytes == 0 }

    /// Adds compressed bytes.
    func feed(_ chunk: some Collection<UInt8>) {
        if offset == input.count {
            input = Array(chunk)
            offset = 0
        } else {
            input.removeFirst(offset)
            input += chunk
            offset = 0
        }
        compressedBytes += chunk.count
    }

    /// Decodes what it can of the bytes fed, at most ``outputPiece`` bytes; empty when it needs more input.
    func inflate() throws(CourierError) -> [UInt8] {
        if memberEnded {
            guard offset < input.count else { return [] }
            // Only gzip may go on after its end: another member.
            guard format == .gzip, input[offset] == 0x1f else {
                throw CourierError(.invalidResponse, detail: "The compressed body has bytes after its end")
            }
            inflateReset(stream)
            memberEnded = false
        }
        if !started, format == .deflate {
            // Two bytes tell the zlib format from raw deflate data, which some servers send under the name.
            guard input.count - offset >= 2 else { return [] }
            if !Self.isZlibHeader(input[offset], input[offset + 1]) {
                inflateEnd(stream)
                try start(windowBits: -15)
            }
        }
        guard offset < input.count || started else { return [] }
        var output = [UInt8](repeating: 0, count: Self.outputPiece)
        var status: Int32 = Z_OK
        var consumed = 0
        var produced = 0
        input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.pointee.next_in = source.baseAddress.map { $0 + offset }
                stream.pointee.avail_in = uInt(source.count - offset)
                stream.pointee.next_out = target.baseAddress
                stream.pointee.avail_out = uInt(target.count)
                status = CZlib.inflate(stream, Z_NO_FLUSH)
                consumed = source.count - offset - Int(stream.pointee.avail_in)
                produced = target.count - Int(stream.pointee.avail_out)
                stream.pointee.next_in = nil
                stream.pointee.next_out = nil
            }
        }
        started = true
        offset += consumed
        decodedBytes += produced
        switch status {
        case Z_STREAM_END: memberEnded = true
        case Z_OK, Z_BUF_ERROR: break
        default:
            throw CourierError(.invalidResponse, detail: "The compressed body can't be decoded (zlib status \(status))")
        }
        if decodedBytes > Self.ratioFloor, decodedBytes / max(compressedBytes, 1) > ratioLimit {
            throw CourierError(.bodyTooLarge, detail: "The compressed body grew more than \(ratioLimit) times its size")
        }
        return Array(output.prefix(produced))
    }

    /// RFC 1950's header: deflate, and a check value that makes the first two bytes a multiple of 31.
    private static func isZlibHeader(_ first: UInt8, _ second: UInt8) -> Bool {
        first & 0x0F == 8 && (UInt16(first) << 8 | UInt16(second)) % 31 == 0
    }
}
