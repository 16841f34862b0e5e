import Foundation
import GRDB

extension CacheStore {
    /// Every stored variant of `key`, metadata only (no body is loaded).
    ///
    /// Rows that fail to decode (a damaged or foreign file) are skipped, never trapped on.
    /// Pick the variant with `CacheRules.selectVariant(for:among:)`.
    package func variants(for key: CacheKey) async throws -> [CachedMetadata] {
        try await read("variants") { db in
            try Row.fetchAll(
                db,
                sql: "SELECT \(Self.metadataColumns) FROM entry WHERE partitionKey = ? AND url = ? AND method = ? ORDER BY id",
                arguments: [key.partition, key.url, key.method]
            ).compactMap(Self.metadata(from:))
        }
    }

    /// The variant `select` picks among the stored variants of `key`, in one read, with its body
    /// when that is at most `inlineBodyLimit` bytes (larger bodies stay on disk until asked for).
    package func lookup(
        _ key: CacheKey,
        inlineBodyLimit: Int = 64 * 1024,
        select: @escaping @Sendable ([CachedMetadata]) -> CachedMetadata?
    ) async throws -> (metadata: CachedMetadata, body: Data?)? {
        if let entry = hot.entry(for: key) {
            guard let chosen = select(entry.variants) else { return nil }
            if let body = entry.bodies[chosen.id] { return (chosen, body) }
        }
        let found = try await read("lookup") { db -> (variants: [CachedMetadata], chosen: CachedMetadata, body: Data?)? in
            let variants = try Row.fetchAll(
                db,
                sql: "SELECT \(Self.metadataColumns) FROM entry WHERE partitionKey = ? AND url = ? AND method = ? ORDER BY id",
                arguments: [key.partition, key.url, key.method]
            ).compactMap(Self.metadata(from:))
            guard !variants.isEmpty, let chosen = select(variants) else { return nil }
            guard chosen.bodySize <= inlineBodyLimit else { return (variants, chosen, nil) }
            let row = try Row.fetchOne(db, sql: "SELECT data FROM body WHERE entryId = ?", arguments: [chosen.id])
            guard let row else { return nil }
            return (variants, chosen, (try? row.decode(Data?.self, forColumn: "data")).flatMap { $0 } ?? Data())
        }
        guard let found else { return nil }
        hot.remember(key, variants: found.variants, body: found.body.map { (found.chosen.id, $0) })
        return (found.chosen, found.body)
    }

    /// The body of a variant; `nil` when the variant has been replaced or removed since `entry` was read.
    package func body(for entry: CachedMetadata) async throws -> Data? {
        try await read("body") { db in
            // Matched on the key too, not the id alone: after a damaged file is replaced, ids start
            // over, and an id read before must not reach another URL's or another user's body.
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT body.data FROM body JOIN entry ON entry.id = body.entryId
                    WHERE body.entryId = ? AND entry.url = ? AND entry.partitionKey = ? AND entry.method = ?
                    """,
                arguments: [entry.id, entry.key.url, entry.key.partition, entry.key.method])
            guard let row else { return nil }
            return (try? row.decode(Data?.self, forColumn: "data")).flatMap { $0 } ?? Data()
        }
    }

    /// Every stored variant of every method for `url` in `partition`, metadata only.
    package func variants(url: URL, partition: String) async throws -> [CachedMetadata] {
        let normalized = CacheKey.normalizedURL(url)
        return try await read("variants") { db in
            try Row.fetchAll(
                db, sql: "SELECT \(Self.metadataColumns) FROM entry WHERE partitionKey = ? AND url = ? ORDER BY id",
                arguments: [partition, normalized]
            ).compactMap(Self.metadata(from:))
        }
    }
}
