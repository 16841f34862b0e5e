import CourierCache
import Foundation
import HTTPTypes
import PostgresNIO

extension PostgresCacheStorage {
    /// Stores a variant in one transaction: the stores of one key wait for each other (an advisory
    /// lock on the key), and a clear of the key's partition waits for them or they for it (a shared
    /// lock on the partition). A store whose request was sent before the partition's last clear,
    /// on any server, loses: a user's sign-out is never undone by a response already on its way.
    /// The variant it replaces goes, the body goes in chunk by chunk, the totals row once, last
    /// and only when sizes change (concurrent writers hold it only to commit), then eviction.
    public func store(_ response: StorableResponse, body: CacheBody) async throws -> StoreOutcome {
        let limit = maximumSize
        let metaSize = CacheStorageSize.metadata(of: response)
        let (chunkSize, logger, now) = (chunkSize, logger, now)
        return try await run("store") { client in
            try await Self.transaction(client, logger: logger) { connection in
                let key = response.key
                let varyKey = response.varySelection.canonicalKey
                let lockName = [key.partition, key.url, key.method, varyKey].joined(separator: "\n")
                try await connection.query(
                    """
                    SELECT pg_advisory_xact_lock_shared(hashtextextended(\(key.partition), \(Self.partitionLockSeed))),
                        pg_advisory_xact_lock(hashtextextended(\(lockName), 0))
                    """, logger: logger)
                // A statement of its own, so its snapshot sees a clear that committed while the locks were awaited.
                let sentAfter = response.requestTime.timeIntervalSince1970 - Self.clockSkewAllowance
                let replaced = try await Self.delete(
                    """
                    partition_key = \(key.partition) AND url = \(key.url) AND method = \(key.method) AND vary_key = \(varyKey)
                    """,
                    unlessCleared: (key.partition, sentAfter),
                    on: connection, logger: logger)
                guard let replaced else { return StoreOutcome() }
                guard body.count + metaSize <= limit else {
                    try await Self.adjustTotals(entries: -replaced.count, bytes: -replaced.bytes, on: connection, logger: logger)
                    return StoreOutcome()
                }
                let stamp = now().timeIntervalSince1970
                let inserted = try await connection.query(
                    """
                    INSERT INTO courier_cache_entry (partition_key, url, method, vary_key, status, headers, request_time,
                        response_time, body_size, meta_size, stored_at, last_access, use_order)
                    VALUES (\(key.partition), \(key.url), \(key.method), \(varyKey), \(Int32(response.status)),
                        \(HeaderCoding.encode(response.headers)), \(response.requestTime.timeIntervalSince1970),
                        \(response.responseTime.timeIntervalSince1970), \(Int64(body.count)), \(Int64(metaSize)), \(stamp), \(stamp),
                        nextval('courier_cache_use'))
                    RETURNING id
                    """, logger: logger)
                var id: Int64?
                for try await value in inserted.decode(Int64.self) { id = value }
                guard let id else { return StoreOutcome() }
                var written = 0
                for try await chunk in body.chunks(ofSize: chunkSize) {
                    try await connection.query(
                        "INSERT INTO courier_cache_chunk (entry_id, start, data) VALUES (\(id), \(Int64(written)), \(chunk))",
                        logger: logger)
                    written += chunk.count
                }
                guard written == body.count else { throw PostgresCacheError.bodyGone(id: id) }
                let total = try await Self.adjustTotals(
                    entries: 1 - replaced.count, bytes: body.count + metaSize - replaced.bytes, on: connection, logger: logger)
                var outcome = StoreOutcome()
                if let total, total > limit {
                    outcome = try await Self.evict(down: total, to: limit, keeping: id, on: connection, logger: logger)
                }
                outcome.stored = response.metadata(id: id, bodySize: body.count, now: Date(timeIntervalSince1970: stamp))
                return outcome
            }
        }
    }

    /// Deletes least recently used variants (never `keeping`) until `total` fits `limit`, reading
    /// candidates by the `use_order` index a batch at a time and skipping rows another
    /// transaction holds (so two instances evicting at once never wait on each other).
    private static func evict(
        down total: Int, to limit: Int, keeping: Int64, on connection: PostgresConnection, logger: Logger
    ) async throws -> StoreOutcome {
        var outcome = StoreOutcome()
        var total = total
        while total > limit {
            let candidates = try await connection.query(
                """
                SELECT id, body_size + meta_size FROM courier_cache_entry WHERE id <> \(keeping)
                ORDER BY use_order, id LIMIT 64 FOR UPDATE SKIP LOCKED
                """, logger: logger)
            var victims: [Int64] = []
            var excess = total - limit
            for try await (id, size) in candidates.decode((Int64, Int64).self) where excess > 0 {
                victims.append(id)
                excess -= Int(size)
            }
            guard !victims.isEmpty else { break }
            let (count, bytes) = try await delete("id = ANY(\(victims))", on: connection, logger: logger) ?? (0, 0)
            try await adjustTotals(entries: -count, bytes: -bytes, on: connection, logger: logger)
            outcome.evictedCount += count
            outcome.evictedBytes += bytes
            total -= bytes
        }
        return outcome
    }

    public func updateHeaders(of variant: CachedMetadata, headers: HTTPFields, requestTime: Date, responseTime: Date) async throws -> Bool {
        let metaSize = CacheStorageSize.metadata(of: variant, headers: headers)
        let (logger, now) = (logger, now)
        return try await run("update") { client in
            try await Self.transaction(client, logger: logger) { connection in
                let rows = try await connection.query(
                    """
                    WITH old AS (
                        SELECT id, meta_size FROM courier_cache_entry WHERE id = \(variant.id)
                            AND partition_key = \(variant.key.partition) AND url = \(variant.key.url)
                            AND method = \(variant.key.method) FOR UPDATE)
                    UPDATE courier_cache_entry e SET headers = \(HeaderCoding.encode(headers)),
                        request_time = \(requestTime.timeIntervalSince1970), response_time = \(responseTime.timeIntervalSince1970),
                        meta_size = \(Int64(metaSize)), last_access = \(now().timeIntervalSince1970),
                        use_order = nextval('courier_cache_use')
                    FROM old WHERE e.id = old.id
                    RETURNING e.meta_size - old.meta_size
                    """, logger: logger)
                var delta: Int64?
                for try await value in rows.decode(Int64.self) { delta = value }
                guard let delta else { return false }
                try await Self.adjustTotals(entries: 0, bytes: Int(delta), on: connection, logger: logger)
                return true
            }
        }
    }

    /// Marks a variant used, unless it was within the last minute: eviction orders by use to the
    /// minute, so most hits write nothing. Failures are left to the next use.
    public func recordUse(of variant: CachedMetadata) async {
        let (logger, stamp) = (logger, now())
        guard stamp.timeIntervalSince(variant.lastAccess) >= 60 else { return }
        _ = try? await run("recordUse") { client in
            try await client.query(
                """
                UPDATE courier_cache_entry SET last_access = \(stamp.timeIntervalSince1970), use_order = nextval('courier_cache_use')
                WHERE id = \(variant.id)
                """, logger: logger)
        }
    }

    public func remove(_ variant: CachedMetadata) async throws -> Bool {
        try await removing(
            """
            id = \(variant.id) AND partition_key = \(variant.key.partition) AND url = \(variant.key.url)
                AND method = \(variant.key.method)
            """) > 0
    }

    /// Removes the variants in `scope` in one statement. PostgreSQL keeps deleted rows in its files
    /// until it vacuums them; the storage can't erase them sooner.
    public func removeAll(_ scope: CacheScope) async throws -> Int {
        switch scope {
        case .url(let url, let partition?):
            return try await removing("partition_key = \(partition) AND url = \(url)")
        case .url(let url, nil):
            return try await removing("url = \(url)")
        case .under(let prefix, let partition):
            // `CacheScope.url(_:isUnder:)` without LIKE (a URL's `%` and `_` are its own); an empty
            // partition parameter stands for every partition.
            let all = partition == nil
            let partition = partition ?? ""
            if prefix.hasSuffix("/") {
                return try await removing("(\(all) OR partition_key = \(partition)) AND starts_with(url, \(prefix))")
            }
            return try await removing(
                """
                (\(all) OR partition_key = \(partition))
                    AND (url = \(prefix) OR starts_with(url, \(prefix + "?")) OR starts_with(url, \(prefix + "/")))
                """)
        case .partition(let partition):
            return try await clearing(partition)
        case .everything:
            return try await removing("true")
        }
    }

    private func removing(_ condition: PostgresQuery) async throws -> Int {
        let logger = logger
        return try await run("remove") { client in
            try await Self.transaction(client, logger: logger) { connection in
                let gone = try await Self.delete(condition, on: connection, logger: logger) ?? (0, 0)
                try await Self.adjustTotals(entries: -gone.count, bytes: -gone.bytes, on: connection, logger: logger)
                return gone.count
            }
        }
    }

    /// Removes a partition and notes when, for every server: a store of this partition whose
    /// request was sent before then loses (see ``store(_:body:)``). Waits for the partition's
    /// stores in progress, which take its lock shared. Notes older than a day go: no request of
    /// that age is still on its way.
    private func clearing(_ partition: String) async throws -> Int {
        let (logger, stamp) = (logger, now().timeIntervalSince1970)
        return try await run("remove") { client in
            try await Self.transaction(client, logger: logger) { connection in
                try await connection.query(
                    """
                    SELECT pg_advisory_xact_lock(hashtextextended(\(partition), \(Self.partitionLockSeed)))
                    """, logger: logger)
                try await connection.query(
                    """
                    WITH old AS (DELETE FROM courier_cache_clear WHERE cleared_at < \(stamp - 86_400))
                    INSERT INTO courier_cache_clear (partition_key, cleared_at) VALUES (\(partition), \(stamp))
                    ON CONFLICT (partition_key) DO UPDATE SET cleared_at = GREATEST(courier_cache_clear.cleared_at, EXCLUDED.cleared_at)
                    """, logger: logger)
                let gone = try await Self.delete("partition_key = \(partition)", on: connection, logger: logger) ?? (0, 0)
                try await Self.adjustTotals(entries: -gone.count, bytes: -gone.bytes, on: connection, logger: logger)
                return gone.count
            }
        }
    }

    /// Deletes the entries `condition` selects (their chunks go with them), in one statement,
    /// unless `clearedSince` names a partition cleared at or after the given time; returns how many
    /// and their bytes, or nil when the clear stopped it. The totals are the caller's to adjust, once.
    static func delete(
        _ condition: PostgresQuery, unlessCleared clearedSince: (partition: String, time: Double)? = nil,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> (count: Int, bytes: Int)? {
        // The text around the condition binds nothing of the condition's, so its `$n` stay its own;
        // the clear's two follow them.
        var binds = condition.binds
        var stop = "false"
        if let clearedSince {
            binds.append(clearedSince.partition)
            binds.append(clearedSince.time)
            stop = """
                EXISTS (SELECT 1 FROM courier_cache_clear WHERE partition_key = $\(binds.count - 1) AND cleared_at >= $\(binds.count))
                """
        }
        let query = PostgresQuery(
            unsafeSQL: """
                WITH stop AS (SELECT \(stop) AS cleared),
                gone AS (DELETE FROM courier_cache_entry WHERE (\(condition.sql)) AND NOT (SELECT cleared FROM stop)
                    RETURNING body_size + meta_size AS size)
                SELECT (SELECT cleared FROM stop), (SELECT count(*) FROM gone), (SELECT COALESCE(sum(size), 0)::bigint FROM gone)
                """,
            binds: binds)
        for try await (stopped, count, bytes) in try await connection.query(query, logger: logger).decode((Bool, Int64, Int64).self) {
            return stopped ? nil : (Int(count), Int(bytes))
        }
        return (0, 0)
    }

    /// Adds to the totals row, when there is something to add; returns the bytes after, or nil
    /// when nothing changed (the row isn't touched, so it isn't locked).
    @discardableResult
    private static func adjustTotals(entries: Int, bytes: Int, on connection: PostgresConnection, logger: Logger) async throws -> Int? {
        guard entries != 0 || bytes != 0 else { return nil }
        let rows = try await connection.query(
            """
            UPDATE courier_cache_totals SET entries = entries + \(Int64(entries)), bytes = bytes + \(Int64(bytes))
            WHERE id = 1 RETURNING bytes
            """, logger: logger)
        for try await total in rows.decode(Int64.self) { return Int(total) }
        return nil
    }
}
