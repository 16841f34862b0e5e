import Courier
import Foundation
import GRDB
import HTTPTypes
import Logging

extension CacheStore {
    /// Stores a response, replacing the variant of `key` with the same vary selection, then evicts LRU variants.
    ///
    /// Metadata and body are written in one transaction, so a crash never leaves an entry without
    /// its full body. If the variant (body plus approximate metadata) is larger than
    /// ``maximumSize`` it is not stored, and the variant it would have replaced is removed (it is
    /// outdated by the newer response). After writing, least-recently-used variants (stored,
    /// touched or revalidated longest ago) are evicted until the total fits ``maximumSize``.
    /// - Returns: the stored variant's metadata, or `nil` when it was too large to store.
    /// - Throws: `CacheStoreError.invalidStatus` for a status outside `100...999`, or a database error.
    @discardableResult
    package func store(
        key: CacheKey, varySelection: VarySelection, status: Int, headers: HTTPFields, body: Data,
        requestTime: Date, responseTime: Date
    ) async throws -> CachedMetadata? {
        guard (100...999).contains(status) else { throw CacheStoreError.invalidStatus(status) }
        let entry = draft(key: key, varySelection: varySelection, status: status, headers: headers, bodySize: body.count,
                          requestTime: requestTime, responseTime: responseTime)
        return try await storeNow(entry) { id, rows, _ in try rows.insertBody(body, of: id) }
    }

    /// A variant about to be stored, with its row id still unknown.
    struct DraftEntry: Sendable {
        var metadata: CachedMetadata
        var varyData: Data
        var headerData: Data
        var metaSize: Int
    }

    func draft(
        key: CacheKey, varySelection: VarySelection, status: Int, headers: HTTPFields, bodySize: Int, requestTime: Date, responseTime: Date
    ) -> DraftEntry {
        // Dates go through `timeIntervalSince1970` exactly as they are stored, so the returned
        // metadata equals what a later read decodes.
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970)
        let metadata = CachedMetadata(
            id: 0, key: key, varySelection: varySelection, status: status, headers: headers,
            requestTime: Date(timeIntervalSince1970: requestTime.timeIntervalSince1970),
            responseTime: Date(timeIntervalSince1970: responseTime.timeIntervalSince1970),
            bodySize: bodySize, storedAt: now, lastAccess: now)
        return DraftEntry(
            metadata: metadata, varyData: VaryCoding.encode(varySelection), headerData: HeaderCoding.encode(headers),
            metaSize: Self.metadataSize(key: key, varySelection: varySelection, headers: headers))
    }

    /// Writes `entry` now, in one transaction with its body (inserted by `insertBody` for the new
    /// row id), after the responses accepted before it; then evicts. Too large for the store, it is
    /// not stored and the variant it would replace is removed.
    func storeNow(_ entry: DraftEntry, insertBody: @escaping @Sendable (Int64, RowWriter, Database) throws -> Void) async throws -> CachedMetadata? {
        let limit = maximumSize
        // Responses accepted earlier go first, so this newer one is never overwritten by them.
        await flushResponses()
        let (id, evicted) = try await write("store") { db in
            try self.flushTouches(db)
            return try Self.replace(with: entry, limit: limit, db, insertBody: insertBody)
        }
        countEvictions(evicted, telemetry: Telemetry.current)
        return id.map(entry.metadata.identified)
    }

    /// Replaces the variant of `entry` with it and evicts (or, too large, removes the variant);
    /// returns the new row id, nil when not stored. Runs in the caller's transaction.
    static func replace(
        with entry: DraftEntry, limit: Int, _ db: Database, insertBody: (Int64, RowWriter, Database) throws -> Void
    ) throws -> (Int64?, Eviction) {
        let metadata = entry.metadata
        let rows = try RowWriter(db)
        guard metadata.bodySize + entry.metaSize <= limit else {
            try rows.delete(metadata.key, varyKey: metadata.varySelection.canonicalKey)
            return (nil, Eviction())
        }
        let id = try rows.replace(with: metadata, varyData: entry.varyData, headerData: entry.headerData, metaSize: entry.metaSize)
        try insertBody(id, rows, db)
        return (id, try evict(db, limit: limit, keeping: id))
    }

    func countEvictions(_ evicted: Eviction, telemetry: Telemetry) {
        guard evicted.count > 0 else { return }
        counters.add(evictions: evicted.count)
        telemetry.count(MetricName.cacheEvictedBytes, [], by: evicted.bytes)
    }

    /// Replaces the headers and times of a variant after a `304 Not Modified`, and marks it recently used.
    ///
    /// Pass the result of ``CacheRules/merge(stored:notModified:)`` and the 304's request and
    /// response times. - Returns: `false` when the variant no longer exists.
    @discardableResult
    package func updateHeaders(
        of entry: CachedMetadata, headers: HTTPFields, requestTime: Date, responseTime: Date
    ) async throws -> Bool {
        let headerData = HeaderCoding.encode(headers)
        let metaSize = Self.metadataSize(key: entry.key, varySelection: entry.varySelection, headers: headers)
        let now = Date().timeIntervalSince1970
        await flushResponses()
        guard let id = pending.rowID(for: entry.id) else { return false }
        return try await write("updateHeaders") { db in
            try db.execute(
                sql: """
                    UPDATE entry SET headers = ?, requestTime = ?, responseTime = ?, metaSize = ?, lastAccess = ?,
                        accessOrder = (SELECT COALESCE(MAX(accessOrder), 0) + 1 FROM entry)
                    WHERE id = ?
                    """,
                arguments: [
                    headerData, requestTime.timeIntervalSince1970, responseTime.timeIntervalSince1970, metaSize, now, id,
                ])
            return db.changesCount > 0
        }
    }

    /// Marks a variant as just used, so LRU eviction takes it last; best effort, failures are only logged.
    ///
    /// A hit must not pay for a write transaction, so uses are collected in memory and written by
    /// the store's writer: with the next stored response (so eviction sees them) or once 64 uses
    /// have piled up.
    package func touch(_ entry: CachedMetadata) async {
        guard let id = pending.rowID(for: entry.id), id >= 0 else { return }
        guard pendingTouches.record(id) else { return }
        startWriterForTouches()
    }

    /// Marks a variant served from the cache as used, unless its recorded use is younger than
    /// ``useGranularity``: eviction orders entries by use to the minute, and a hit on an entry
    /// used (or stored) within the last minute costs no write at all.
    func recordUse(of entry: CachedMetadata) async {
        guard Date().timeIntervalSince(entry.lastAccess) >= Self.useGranularity else { return }
        await touch(entry)
    }

    /// How recent a recorded use may be for a hit not to record another (see ``recordUse(of:)``).
    static let useGranularity: TimeInterval = 60

    /// Writes the collected uses, in order, as the most recent accesses.
    func flushTouches(_ db: Database) throws {
        let ids = pendingTouches.drain()
        guard !ids.isEmpty else { return }
        let now = Date().timeIntervalSince1970
        var order = try Int64.fetchOne(db.cachedStatement(sql: "SELECT COALESCE(MAX(accessOrder), 0) FROM entry")) ?? 0
        let statement = try db.cachedStatement(sql: "UPDATE entry SET lastAccess = ?, accessOrder = ? WHERE id = ?")
        for id in ids {
            order += 1
            try statement.execute(arguments: [now, order, id])
        }
    }

    /// What an eviction removed.
    struct Eviction {
        var count = 0
        var bytes = 0
    }

    /// Deletes least-recently-used entries (never `keeping`) until the total fits `limit`.
    static func evict(_ db: Database, limit: Int, keeping: Int64) throws -> Eviction {
        // Kept by triggers (see ``migrator``): summing every row would cost a scan per write.
        var total = try Int.fetchOne(db.cachedStatement(sql: "SELECT bytes FROM totals")) ?? 0
        guard total > limit else { return Eviction() }
        let before = total
        var victims: [Int64] = []
        let rows = try Row.fetchCursor(
            db, sql: "SELECT id, bodySize + metaSize AS size FROM entry WHERE id != ? ORDER BY accessOrder, id",
            arguments: [keeping])
        while total > limit, let row = try rows.next() {
            victims.append(try row.decode(Int64.self, forColumn: "id"))
            total -= (try? row.decode(Int.self, forColumn: "size")) ?? 0
        }
        for chunk in stride(from: 0, to: victims.count, by: 500) {
            let ids = victims[chunk..<min(chunk + 500, victims.count)]
            try db.execute(
                sql: "DELETE FROM entry WHERE id IN (\(ids.map { _ in "?" }.joined(separator: ",")))",
                arguments: StatementArguments(Array(ids)))
        }
        return Eviction(count: victims.count, bytes: before - total)
    }
}

/// Errors of the store itself (database failures while running are GRDB `DatabaseError`s).
public enum CacheStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The status code is outside `100...999`.
    case invalidStatus(Int)
    /// The database file can't be opened or created (a read-only folder, a full disk, a path under a file).
    case cannotOpen(path: String, reason: String)
    /// The store has no database (see ``CacheStore/openOrFallBack(fileURL:maximumSize:logger:)``).
    case unavailable

    /// What went wrong, with the file's path where there is one.
    public var description: String {
        switch self {
        case .invalidStatus(let status): "Status \(status) can't be stored"
        case .cannotOpen(let path, let reason): "The cache database at \(path) can't be opened: \(reason)"
        case .unavailable: "The cache store has no database"
        }
    }
}
