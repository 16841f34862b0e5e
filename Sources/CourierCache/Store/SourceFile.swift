import Courier
import Foundation
import GRDB
import GRDBSQLite
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file a stored body is copied from: opened when the response is accepted, read later by the
/// store's writer (so the caller may move or delete it meanwhile), closed when released. Its size
/// is taken at open, so a file cut or grown during the copy shows.
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

    /// Writes the file's bytes into the zero-filled body of row `id`, a chunk at a time.
    /// - Throws: ``CourierError/Kind/file`` when the file ends early or its size changed since it
    ///   was opened (the transaction then stores nothing), or SQLite's error.
    func copy(intoBodyOf id: Int64, _ db: Database) throws {
        var blob: OpaquePointer?
        let code = sqlite3_blob_open(db.sqliteConnection, "main", "body", "data", id, 1, &blob)
        guard code == SQLITE_OK, let blob else {
            sqlite3_blob_close(blob)
            throw DatabaseError(resultCode: ResultCode(rawValue: code))
        }
        // One handle for the whole body: SQLite remembers where it is in the value's pages.
        defer { sqlite3_blob_close(blob) }
        var buffer = [UInt8](repeating: 0, count: CacheStore.bodyChunkSize)
        var offset = 0
        while offset < size {
            let wanted = min(buffer.count, size - offset)
            let read = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, wanted, off_t(offset)) }
            guard read > 0 else {
                throw CourierError(.file, detail: "\(path) ended after \(offset) of \(size) bytes while it was copied into the cache")
            }
            let written = buffer.withUnsafeBytes { sqlite3_blob_write(blob, $0.baseAddress, Int32(read), Int32(offset)) }
            guard written == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: written)) }
            offset += read
        }
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
