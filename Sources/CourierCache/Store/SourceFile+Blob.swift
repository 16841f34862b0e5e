import Courier
import Foundation
import GRDB
import GRDBSQLite

extension SourceFile {
    /// Writes the file's bytes into the zero-filled body of row `id`, a chunk at a time, through
    /// SQLite's incremental blob I/O (inside the caller's transaction, which a stream can't be).
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
        var buffer = [UInt8](repeating: 0, count: SQLiteCacheStorage.bodyChunkSize)
        var offset = 0
        while offset < size {
            let read = try buffer.withUnsafeMutableBytes { try self.read(at: offset, into: $0) }
            let written = buffer.withUnsafeBytes { sqlite3_blob_write(blob, $0.baseAddress, Int32(read), Int32(offset)) }
            guard written == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: written)) }
            offset += read
        }
        try checkUnchanged()
    }
}
