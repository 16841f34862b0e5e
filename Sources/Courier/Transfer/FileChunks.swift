import Foundation
import OpenAPIRuntime

/// A file's bytes as `HTTPBody` chunks, read from the start each time it is iterated (so a retried
/// upload sends the whole file again), never held whole in memory.
package struct FileChunks: AsyncSequence, Sendable {
    package typealias Element = ArraySlice<UInt8>

    /// How much is read at a time.
    static let chunkSize = 64 * 1024

    let file: URL
    /// The size announced for the upload; a file that no longer has it fails the upload.
    let length: Int64

    /// The upload body for `file`, its length taken now.
    package static func body(for file: URL) throws(CourierError) -> HTTPBody {
        let size: Int64
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            guard (attributes[.type] as? FileAttributeType) == .typeRegular, let bytes = attributes[.size] as? NSNumber else {
                throw CourierError(.file, detail: "\(file.path) is not a file")
            }
            size = bytes.int64Value
        } catch let error as CourierError {
            throw error
        } catch {
            throw CourierError(.file, detail: "Cannot read the file \(file.path) to upload", underlying: error)
        }
        return HTTPBody(FileChunks(file: file, length: size), length: .known(size), iterationBehavior: .multiple)
    }

    package func makeAsyncIterator() -> Iterator { Iterator(file: file, length: length) }

    package struct Iterator: AsyncIteratorProtocol {
        let file: URL
        let length: Int64
        private var reader: Reader?
        private var sent: Int64 = 0

        init(file: URL, length: Int64) {
            self.file = file
            self.length = length
        }

        package mutating func next() async throws -> ArraySlice<UInt8>? {
            try Task.checkCancellation()
            if reader == nil { reader = try Reader(file) }
            guard let reader else { return nil }
            let chunk = try reader.read(upTo: Int(Swift.min(Int64(FileChunks.chunkSize), Swift.max(0, length - sent))))
            sent += Int64(chunk.count)
            if chunk.isEmpty, sent < length {
                throw CourierError(.file, detail: "\(file.path) changed while it was being sent: \(sent) of \(length) bytes")
            }
            return chunk.isEmpty ? nil : chunk
        }
    }

    /// An open file, closed when the last iterator copy goes.
    final class Reader {
        private let handle: FileHandle
        private let file: URL

        init(_ file: URL) throws(CourierError) {
            self.file = file
            do {
                handle = try FileHandle(forReadingFrom: file)
            } catch {
                throw CourierError(.file, detail: "Cannot open \(file.path) to upload", underlying: error)
            }
        }

        func read(upTo count: Int) throws(CourierError) -> ArraySlice<UInt8> {
            guard count > 0 else { return [] }
            do {
                return ArraySlice(try handle.read(upToCount: count) ?? Data())
            } catch {
                throw CourierError(.file, detail: "Reading \(file.path) to upload failed", underlying: error)
            }
        }

        deinit { try? handle.close() }
    }
}
