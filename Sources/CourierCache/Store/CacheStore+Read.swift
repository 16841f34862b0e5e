import Foundation
import GRDB

extension CacheStore {
    /// Every stored variant of `key`, metadata only (no body is loaded), responses still waiting
    /// for the writer included.
    ///
    /// Rows that fail to decode (a damaged or foreign file) are skipped, never trapped on.
    /// Pick the variant with `CacheRules.selectVariant(for:among:)`.
    package func variants(for key: CacheKey) async throws -> [CachedMetadata] {
        let waiting = pending.variants(for: key)
        let stored = try await read("variants") { db in
            try Self.metadataRows(
                db.cachedStatement(
                    sql: "SELECT \(Self.metadataColumns) FROM entry WHERE partitionKey = ? AND url = ? AND method = ? ORDER BY id"),
                arguments: [key.partition, key.url, key.method])
        }
        return Self.overlay(waiting, on: stored).map(\.metadata)
    }

    /// The variant `select` picks among the stored variants of `key`, in one read, with its body
    /// when that is at most `inlineBodyLimit` bytes (larger bodies stay on disk until asked for).
    ///
    /// The read runs on the calling thread: one indexed statement on one of the pool's readers,
    /// which in WAL mode never waits for a writer and costs less than a hop to another thread and back.
    package func lookup(
        _ key: CacheKey,
        inlineBodyLimit: Int = 64 * 1024,
        select: @escaping @Sendable ([CachedMetadata]) -> CachedMetadata?
    ) async throws -> (metadata: CachedMetadata, body: Data?)? {
        let waiting = pending.variants(for: key)
        let stored = try readVariants(of: key, inlineBodyLimit: inlineBodyLimit)
        let variants = Self.overlay(waiting, on: stored)
        guard !variants.isEmpty, let chosen = select(variants.map(\.metadata)),
              let found = variants.last(where: { $0.metadata.id == chosen.id })
        else { return nil }
        // A row without its body is a damaged entry: a miss.
        guard found.hasBody else { return nil }
        let body = chosen.bodySize <= inlineBodyLimit ? found.body ?? Data() : nil
        return (chosen, body)
    }

    /// A variant as read for a lookup: its metadata, whether its body row exists, and the body when small.
    struct StoredVariant {
        var metadata: CachedMetadata
        var hasBody: Bool
        var body: Data?
    }

    /// The lookup: the variants of a key with their bodies when small, in one statement.
    /// Parameters: the inline body limit, then the partition, URL and method.
    private static let lookupSQL = """
        SELECT \(metadataColumns), body.entryId IS NOT NULL, CASE WHEN entry.bodySize <= ? THEN body.data END
        FROM entry LEFT JOIN body ON body.entryId = entry.id
        WHERE entry.partitionKey = ? AND entry.url = ? AND entry.method = ? ORDER BY entry.id
        """

    /// The variants of `key` with their small bodies, in one statement.
    static func variantsWithBodies(of key: CacheKey, inlineBodyLimit: Int, _ db: Database) throws -> [StoredVariant] {
        let statement = try db.cachedStatement(sql: lookupSQL)
        let rows = try Row.fetchCursor(statement, arguments: [inlineBodyLimit, key.partition, key.url, key.method])
        var variants: [StoredVariant] = []
        while try rows.next() != nil {
            if let variant = storedVariant(from: SQLiteRow(statement: statement.sqliteStatement), key: key) { variants.append(variant) }
        }
        return variants
    }

    /// A row of ``lookupSQL``; nil when its metadata doesn't decode.
    static func storedVariant(from row: SQLiteRow, key: CacheKey) -> StoredVariant? {
        guard let metadata = metadata(from: row, key: key) else { return nil }
        return StoredVariant(metadata: metadata, hasBody: row.int64(12) == 1, body: row.data(13))
    }

    /// The stored variants with the pending writes on top: a pending write replaces the stored
    /// variant with the same vary selection and counts as the newest.
    static func overlay(_ waiting: [PendingWrites.Write], on stored: [StoredVariant]) -> [StoredVariant] {
        guard !waiting.isEmpty else { return stored }
        var variants = stored
        for write in waiting {
            let varyKey = write.metadata.varySelection.canonicalKey
            variants.removeAll { $0.metadata.varySelection.canonicalKey == varyKey && $0.metadata.key == write.metadata.key }
            variants.append(StoredVariant(metadata: write.metadata, hasBody: true, body: write.body))
        }
        return variants
    }

    private static func overlay(_ waiting: [PendingWrites.Write], on stored: [CachedMetadata]) -> [StoredVariant] {
        overlay(waiting, on: stored.map { StoredVariant(metadata: $0, hasBody: true, body: nil) })
    }

    /// The body of a variant; `nil` when the variant has been replaced or removed since `entry` was read.
    package func body(for entry: CachedMetadata) async throws -> Data? {
        if entry.id < 0, let write = pending.write(id: entry.id) { return write.body }
        guard let id = pending.rowID(for: entry.id) else { return nil }
        return try await read("body") { db in
            // Matched on the key too, not the id alone: after a damaged file is replaced, ids start
            // over, and an id read before must not reach another URL's or another user's body.
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT body.data FROM body JOIN entry ON entry.id = body.entryId
                    WHERE body.entryId = ? AND entry.url = ? AND entry.partitionKey = ? AND entry.method = ?
                    """,
                arguments: [id, entry.key.url, entry.key.partition, entry.key.method])
            guard let row else { return nil }
            return (try? row.decode(Data?.self, atIndex: 0)).flatMap { $0 } ?? Data()
        }
    }

    /// Every stored variant of every method for `url` in `partition`, metadata only, pending ones included.
    package func variants(url: URL, partition: String) async throws -> [CachedMetadata] {
        let normalized = CacheKey.normalizedURL(url)
        let waiting = pending.variants(url: normalized, partition: partition)
        let stored = try await read("variants") { db in
            try Self.metadataRows(
                db.cachedStatement(sql: "SELECT \(Self.metadataColumns) FROM entry WHERE partitionKey = ? AND url = ? ORDER BY id"),
                arguments: [partition, normalized])
        }
        return Self.overlay(waiting, on: stored).map(\.metadata)
    }
}
