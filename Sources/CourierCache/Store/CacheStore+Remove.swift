import Foundation
import GRDB

extension CacheStore {
    /// Removes every variant of `key`; returns how many.
    @discardableResult
    package func remove(_ key: CacheKey) async throws -> Int {
        try await delete(
            "DELETE FROM entry WHERE partitionKey = ? AND url = ? AND method = ?", [key.partition, key.url, key.method])
    }

    /// Removes one variant; `false` when it was already replaced or removed.
    @discardableResult
    package func remove(_ entry: CachedMetadata) async throws -> Bool {
        // Matched on the key too: after a damaged file is replaced, ids start over.
        await flushResponses()
        guard let id = pending.rowID(for: entry.id) else { return false }
        return try await delete(
            "DELETE FROM entry WHERE id = ? AND partitionKey = ? AND url = ? AND method = ?",
            [id, entry.key.partition, entry.key.url, entry.key.method]) > 0
    }

    /// Removes the variant of `key` with the given vary selection key.
    @discardableResult
    func remove(_ key: CacheKey, varyKey: String) async throws -> Int {
        try await delete(
            "DELETE FROM entry WHERE partitionKey = ? AND url = ? AND method = ? AND varyKey = ?",
            [key.partition, key.url, key.method, varyKey])
    }

    /// Removes every method and variant stored for `url` (normalised) in `partition`; returns how many.
    ///
    /// Use it with `CacheRules.invalidationTargets(request:response:)` after an unsafe request.
    @discardableResult
    package func remove(url: URL, partition: String) async throws -> Int {
        try await delete("DELETE FROM entry WHERE partitionKey = ? AND url = ?", [partition, CacheKey.normalizedURL(url)])
    }

    /// Removes every method and variant stored for `url` (normalised) in every partition; returns how many.
    @discardableResult
    public func removeAll(url: URL) async throws -> Int {
        try await delete("DELETE FROM entry WHERE url = ?", [CacheKey.normalizedURL(url)])
    }

    /// Removes everything stored for one user (e.g. on logout); returns how many variants. The
    /// bytes leave the file too: SQLite overwrites what it deletes (`secure_delete`), and the
    /// write-ahead log, which still holds the old pages, is checkpointed and emptied.
    @discardableResult
    package func removeAll(partition: String) async throws -> Int {
        let removed = try await delete("DELETE FROM entry WHERE partitionKey = ?", [partition])
        try? await emptyLog()
        return removed
    }

    /// Removes every variant of every user; returns how many. The bytes leave the file too: SQLite
    /// overwrites what it deletes (`secure_delete`), and the write-ahead log is checkpointed and emptied.
    @discardableResult
    public func clear() async throws -> Int {
        let removed = try await delete("DELETE FROM entry", [])
        try? await emptyLog()
        return removed
    }

    /// Copies the write-ahead log into the database and truncates it to nothing; a failure (a reader
    /// in another process holding the log) is logged and counted like any other.
    private func emptyLog() async throws {
        try await access("checkpoint") { writer in
            try await writer.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        }
    }

    /// ``emptyLog()`` where no call can wait (closing): best effort.
    static func checkpoint(_ writer: any DatabaseWriter) {
        try? writer.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
    }

    /// Runs a delete after everything pending is written, so a removal always follows the stores before it.
    private func delete(_ sql: String, _ arguments: StatementArguments) async throws -> Int {
        await flushResponses()
        return try await write("remove") { db in
            try db.execute(sql: sql, arguments: arguments)
            return db.changesCount
        }
    }
}
