import Foundation
import OpenAPIRuntime

/// A file's bytes as `HTTPBody` chunks, read from the start each time it is iterated (so a retried
/// upload sends the whole file again), never held whole in memory.
///
/// Each reading checks that the file is the one the upload began with (its size, modification time,
/// device and inode): a file replaced or edited between two attempts fails the call with
/// ``CourierError/Kind/file`` instead of sending other bytes under the same `Idempotency-Key`.
package struct FileChunks: AsyncSequence, Sendable {
    package typealias Element = ArraySlice<UInt8>

    /// How much is read at a time.
    static let chunkSize = 64 * 1024

    let file: URL
    /// The file as the upload found it; a file that no longer matches it fails the upload.
    let snapshot: FileSnapshot

    /// The size announced for the upload.
    var length: Int64 { snapshot.size }

    /// The upload body for `file`, its length and identity taken now.
    package static func body(for file: URL) throws(CourierError) -> HTTPBody {
        guard let snapshot = FileSnapshot(path: file.path) else {
            throw CourierError(.file, detail: "Cannot read the file \(file.path) to upload: \(String(cString: strerror(errno)))")
        }
        guard snapshot.isRegularFile else { throw CourierError(.file, detail: "\(file.path) is not a file") }
        return HTTPBody(FileChunks(file: file, snapshot: snapshot), length: .known(snapshot.size), iterationBehavior: .multiple)
    }

    package func makeAsyncIterator() -> Iterator { Iterator(file: file, snapshot: snapshot) }

    package struct Iterator: AsyncIteratorProtocol {
        let file: URL
        let snapshot: FileSnapshot
        private var reader: Reader?
        private var sent: Int64 = 0

        init(file: URL, snapshot: FileSnapshot) {
            self.file = file
            self.snapshot = snapshot
        }

        package mutating func next() async throws -> ArraySlice<UInt8>? {
            try Task.checkCancellation()
            if reader == nil {
                let opened = try Reader(file)
                try opened.check(against: snapshot)
                reader = opened
            }
            guard let reader else { return nil }
            let length = snapshot.size
            let chunk = try reader.read(upTo: Int(Swift.min(Int64(FileChunks.chunkSize), Swift.max(0, length - sent))))
            sent += Int64(chunk.count)
            if chunk.isEmpty, sent < length {
                throw CourierError(.file, detail: "\(file.path) changed while it was being sent: \(sent) of \(length) bytes")
            }
            // Edited while it was read: what went out may mix two versions.
            if chunk.isEmpty { try reader.check(against: snapshot) }
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

        /// Fails when the open file is not the one `snapshot` describes.
        func check(against snapshot: FileSnapshot) throws(CourierError) {
            guard FileSnapshot(descriptor: handle.fileDescriptor) == snapshot else {
                throw CourierError(
                    .file,
                    detail: "\(file.path) changed since the upload began (its size, modification time or identity differ): it is not sent again as the same request"
                )
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

