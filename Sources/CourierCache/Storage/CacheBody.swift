import Courier
import Foundation
import OpenAPIRuntime

/// The body of a response to store: bytes in memory, or a download's file read a chunk at a time.
///
/// A storage reads it with ``chunks(ofSize:)`` (and may take ``bytes`` whole when it is in
/// memory); it never copies a file of its own accord.
public struct CacheBody: Sendable {
    private enum Source: Sendable {
        case bytes(Data)
        case file(SourceFile)
    }

    private let source: Source

    /// Its length in bytes.
    public var count: Int {
        switch source {
        case .bytes(let data): data.count
        case .file(let file): file.size
        }
    }

    /// The whole body when it is in memory; nil for a file.
    public var bytes: Data? {
        if case .bytes(let data) = source { return data }
        return nil
    }

    /// A body in memory.
    public static func bytes(_ data: Data) -> CacheBody { CacheBody(source: .bytes(data)) }

    /// A file's bytes, opened now (so the file may be moved meanwhile) and read when stored.
    /// - Throws: `CourierError.Kind.file` when it can't be opened.
    public static func file(_ url: URL) throws -> CacheBody { CacheBody(source: .file(try SourceFile(url))) }

    /// The opened file, for a storage that copies it on a thread of its own (SQLite's blob writes).
    var file: SourceFile? {
        if case .file(let file) = source { return file }
        return nil
    }

    /// The body in chunks of at most `size` bytes, ``count`` in all, never more than one chunk in
    /// memory at a time. A file that ends early or changed size while read ends the stream with
    /// an error, so the storage stores nothing.
    public func chunks(ofSize size: Int = 256 << 10) -> AsyncThrowingStream<Data, any Error> {
        let size = max(size, 1)
        switch source {
        case .bytes(let data):
            let next = Locked(data.startIndex)
            return AsyncThrowingStream(unfolding: {
                next.withLock { offset in
                    guard offset < data.endIndex else { return nil }
                    defer { offset = min(offset + size, data.endIndex) }
                    return data[offset..<min(offset + size, data.endIndex)]
                }
            })
        case .file(let file):
            let next = Locked(0)
            return AsyncThrowingStream(unfolding: {
                try next.withLock { offset in
                    guard offset < file.size else {
                        try file.checkUnchanged()
                        return nil
                    }
                    var chunk = Data(count: min(size, file.size - offset))
                    let read = try chunk.withUnsafeMutableBytes { try file.read(at: offset, into: $0) }
                    offset += read
                    return chunk.prefix(read)
                }
            })
        }
    }
}
