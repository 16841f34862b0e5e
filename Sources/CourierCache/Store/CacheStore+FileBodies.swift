import Courier
import Foundation
import GRDB
import GRDBSQLite
import HTTPTypes
import OpenAPIRuntime

/// Bodies too large for memory (downloads): copied in from a file and read back as a stream, in
/// chunks, through SQLite's incremental blob I/O.
extension CacheStore {
    /// Accepts a response whose body is the file at `bodyFile` and returns at once: the store's
    /// writer copies the file in a chunk at a time, never whole in memory, after the responses
    /// accepted before it, in one transaction.
    ///
    /// The file is opened now, so the caller may move or delete it meanwhile; one whose size
    /// changes before or while it is copied is not stored. Until the copy commits, reads
    /// don't see it; ``flush()`` waits for it. Otherwise as ``enqueue(key:varySelection:status:headers:body:requestTime:responseTime:)``:
    /// a body too large for the store (or over SQLite's 1e9-byte value limit) is not stored and the
    /// variant it would replace is removed; a failure is logged and counted.
    /// - Throws: ``CourierError/Kind/file`` when the file can't be opened.
    package func enqueue(
        key: CacheKey, varySelection: VarySelection, status: Int, headers: HTTPFields, bodyFile: URL,
        requestTime: Date, responseTime: Date
    ) throws(CourierError) {
        guard (100...999).contains(status) else { return }
        let source = try SourceFile(bodyFile)
        let entry = draft(key: key, varySelection: varySelection, status: status, headers: headers, bodySize: source.size,
                          requestTime: requestTime, responseTime: responseTime)
        // Over SQLite's limit: stored as too large for the store, which removes the older variant.
        let limit = source.size <= Self.largestBody ? maximumSize : 0
        let telemetry = Telemetry.current
        fileCopies.withLock { $0 += 1 }
        writerQueue.async {
            // The file closes when `source` is released, after the copy.
            defer { self.fileCopies.withLock { $0 -= 1 } }
            // Responses accepted earlier go first, so this newer one is never overwritten by them.
            self.drain()
            let result = try? self.accessNow("store") { writer in
                try writer.write { db in
                    try self.flushTouches(db)
                    return try Self.replace(with: entry, limit: limit, db) { id, _, db in
                        try db.cachedStatement(sql: "INSERT INTO body (entryId, data) VALUES (?, zeroblob(?))")
                            .execute(arguments: [id, source.size])
                        try source.copy(intoBodyOf: id, db)
                    }
                }
            }
            guard let (id, evicted) = result else { return }
            self.countEvictions(evicted, telemetry: telemetry)
            if id != nil { telemetry.count(MetricName.cacheStored, []) }
        }
    }

    /// The body of a variant from `offsets` on, as a stream read from the store a chunk at a
    /// time; nil when the variant has been replaced or removed since `entry` was read.
    ///
    /// The stream reads one snapshot of the file (a read transaction on a connection of its own,
    /// held until the stream ends or is released), so a write meanwhile can't change the bytes it
    /// serves. An in-memory store, or a response still waiting for the writer, is served from memory.
    package func streamedBody(for entry: CachedMetadata, offsets: Range<Int>) async throws -> HTTPBody? {
        guard entry.id >= 0, let fileURL, let id = pending.rowID(for: entry.id) else {
            return try await body(for: entry)?.body(at: offsets)
        }
        // Failures are logged, counted and a damaged file replaced, as for every other read.
        let opened = try accessNow("streamedBody") { _ in
            try BodyCursor(path: fileURL.path, entryID: id, key: entry.key, offsets: offsets)
        }
        guard let cursor = opened else { return nil }
        return HTTPBody(StoredBodyChunks(cursor: Locked(cursor)), length: .known(Int64(offsets.count)), iterationBehavior: .single)
    }

    /// The largest body SQLite holds in one value (its default `SQLITE_MAX_LENGTH`).
    static let largestBody = 1_000_000_000

    /// How much of a body one read or write moves.
    static let bodyChunkSize = 256 << 10
}

/// A stored body's chunks, read by its one iterator from a ``BodyCursor``.
struct StoredBodyChunks: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    /// Locked: a sequence is `Sendable`; only its one iterator (`.single`) reads, a chunk at a time.
    let cursor: Locked<BodyCursor>

    struct AsyncIterator: AsyncIteratorProtocol {
        let cursor: Locked<BodyCursor>

        mutating func next() async throws -> ArraySlice<UInt8>? {
            try Task.checkCancellation()
            return try cursor.withLock { try $0.next() }
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(cursor: cursor) }
}
