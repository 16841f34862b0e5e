import Courier
import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file a stored body is copied from: opened when the response is accepted, read later by the
/// storage (so the caller may move or delete it meanwhile), closed when released. Its size is
/// taken at open, so a file cut or grown during the copy shows.
final class SourceFile: Sendable {
    private let descriptor: Int32
    let path: String
    /// The size in bytes when the file was opened.
    let size: Int

    /// Opens `url` for reading.
    /// - Throws: ``CourierError/Kind/file`` when it can't be opened.
    init(_ url: URL) throws(CourierError) {
        path = url.path
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CourierError(.file, detail: "Cannot read \(url.path): \(String(cString: strerror(errno)))")
        }
        guard let size = Self.size(descriptor) else {
            close(descriptor)
            throw CourierError(.file, detail: "Cannot read the size of \(url.path)")
        }
        self.descriptor = descriptor
        self.size = size
    }

    deinit { close(descriptor) }

    /// Reads up to `buffer.count` bytes at `offset` (fewer only at the end).
    /// - Throws: ``CourierError/Kind/file`` when the file ends before `size`.
    func read(at offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws(CourierError) -> Int {
        let wanted = min(buffer.count, size - offset)
        guard wanted > 0 else { return 0 }
        let read = pread(descriptor, buffer.baseAddress, wanted, off_t(offset))
        guard read > 0 else {
            throw CourierError(.file, detail: "\(path) ended after \(offset) of \(size) bytes while it was copied into the cache")
        }
        return read
    }

    /// Throws when the file's size is no longer the one it had when opened.
    func checkUnchanged() throws(CourierError) {
        guard Self.size(descriptor) == size else {
            throw CourierError(.file, detail: "\(path) changed while it was copied into the cache")
        }
    }

    /// The file's size now (its end), or nil when it can't be told.
    private static func size(_ descriptor: Int32) -> Int? {
        let end = lseek(descriptor, 0, SEEK_END)
        return end >= 0 ? Int(end) : nil
    }
}
