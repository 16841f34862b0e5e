import CourierCache
import Foundation
import HTTPTypes
import PostgresNIO

extension PostgresCacheStorage {
    /// Stores a variant: the stores of one key wait for each other (an advisory lock on the key),
    /// and a clear of the key's partition waits for them or they for it (a shared lock on the
    /// partition). A store whose request left before a clear of the partition, on any server,
    /// loses: its `VariantToStore.clearMark` is older than the partition's clear generation
    /// (without a mark, any clear noted loses it). A user's sign-out is never undone by a response
    /// already on its way, whatever the servers' clocks say. The
    /// variant it replaces goes, the body goes in, the totals row once, last and only when sizes
    /// change (concurrent writers hold it only to commit), then eviction.
    ///
    /// A body within one chunk is one statement, `courier_cache_put` (one round trip, its own
    /// transaction). A larger body is a transaction: that statement with the first chunk, one
    /// statement per further chunk, then `courier_cache_settle`.
    public func store(_ response: VariantToStore, body: CacheBody) async throws -> StoreOutcome {
        let (limit, chunkSize, logger, now) = (maximumSize, chunkSize, logger, now)
        let metaSize = CacheStorageSize.metadata(of: response)
        return try await run("store") { client in
            var chunks = body.chunks(ofSize: chunkSize).makeAsyncIterator()
            let first = try await chunks.next() ?? Data()
            let put = PutStatement(
                response: response, bodySize: body.count, metaSize: metaSize, stamp: now(), limit: limit, firstChunk: first)
            if put.whole {
                _ = try await chunks.next()  // the end, where a file checks it didn't change
                return put.outcome(try await Self.firstRow(of: client.execute(put, logger: logger)))
            }
            return try await Self.transaction(client, logger: logger) { connection in
                let row = try await Self.firstRow(of: connection.execute(put, logger: logger))
                guard let row, let id = row.storedID else { return put.outcome(row) }
                var written = first.count
                while let chunk = try await chunks.next() {
                    try await connection.query(
                        "INSERT INTO courier_cache_chunk (entry_id, start, data) VALUES (\(id), \(Int64(written)), \(chunk))",
                        logger: logger)
                    written += chunk.count
                }
                guard written == body.count else { throw PostgresCacheError.bodyGone(id: id) }
                let evicted = try await Self.settle(
                    entries: 1 - row.replacedCount, bytes: Int64(body.count + metaSize) - row.replacedBytes,
                    evictingTo: limit, keeping: id, on: connection, logger: logger)
                return put.outcome(row, evicted: evicted)
            }
        }
    }

    /// A statement's first row, or nil; its rows are read to the end, so the connection is free.
    private static func firstRow<Rows: AsyncSequence>(of rows: Rows) async throws -> Rows.Element? {
        var first: Rows.Element?
        for try await row in rows where first == nil { first = row }
        return first
    }

    public func updateHeaders(of variant: VariantMetadata, headers: HTTPFields, requestTime: Date, responseTime: Date) async throws -> Bool {
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
                try await Self.settle(entries: 0, bytes: delta, on: connection, logger: logger)
                return true
            }
        }
    }

    /// Marks a variant used, unless it was within the last minute: eviction orders by use to the
    /// minute, so most hits write nothing. Failures are left to the next use.
    public func recordUse(of variant: VariantMetadata) async {
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

    public func remove(_ variant: VariantMetadata) async throws -> Bool {
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
            return try await removing("true", endingFlights: true)
        }
    }

    /// Removes the entries `condition` selects; with `endingFlights`, every flight too (everything goes).
    private func removing(_ condition: PostgresQuery, endingFlights: Bool = false) async throws -> Int {
        let logger = logger
        return try await run("remove") { client in
            try await Self.transaction(client, logger: logger) { connection in
                if endingFlights { try await connection.query("DELETE FROM courier_cache_flight", logger: logger) }
                let gone = try await Self.delete(condition, on: connection, logger: logger)
                try await Self.settle(entries: -gone.count, bytes: -gone.bytes, on: connection, logger: logger)
                return Int(gone.count)
            }
        }
    }

    /// Removes a partition and gives it a new clear generation, for every server: a store of this
    /// partition whose mark was read before then loses (see ``store(_:body:)``). Waits for the
    /// partition's stores in progress, which take its lock shared. Notes older than a day go (by
    /// this server's clock, which a day dwarfs): no request of that age is still on its way; so do
    /// flights whose claims ran out (their claimants never came back).
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
                    WITH old AS (DELETE FROM courier_cache_clear WHERE cleared_at < \(stamp - 86_400)),
                        ran_out AS (DELETE FROM courier_cache_flight WHERE claimed_until < extract(epoch FROM clock_timestamp()))
                    INSERT INTO courier_cache_clear (partition_key, cleared_at) VALUES (\(partition), \(stamp))
                    ON CONFLICT (partition_key) DO UPDATE SET generation = nextval('courier_cache_clear_generation'),
                        cleared_at = GREATEST(courier_cache_clear.cleared_at, EXCLUDED.cleared_at)
                    """, logger: logger)
                let gone = try await Self.delete("partition_key = \(partition)", on: connection, logger: logger)
                try await Self.settle(entries: -gone.count, bytes: -gone.bytes, on: connection, logger: logger)
                return Int(gone.count)
            }
        }
    }

    /// Deletes the entries `condition` selects (their chunks go with them) in one statement;
    /// returns how many and their bytes. The totals are the caller's to settle, once.
    private static func delete(_ condition: PostgresQuery, on connection: PostgresConnection, logger: Logger) async throws -> (count: Int64, bytes: Int64) {
        let query = PostgresQuery(
            unsafeSQL: """
                WITH gone AS (DELETE FROM courier_cache_entry WHERE \(condition.sql) RETURNING body_size + meta_size AS size)
                SELECT count(*), COALESCE(sum(size), 0)::bigint FROM gone
                """,
            binds: condition.binds)
        for try await gone in try await connection.query(query, logger: logger).decode((Int64, Int64).self) { return gone }
        return (0, 0)
    }

    /// Adds to the totals row and evicts down to `limit` (never `keeping`), in
    /// `courier_cache_settle`: a change of nothing doesn't touch the row (so doesn't lock it).
    /// Returns what it evicted.
    @discardableResult
    private static func settle(
        entries: Int64, bytes: Int64, evictingTo limit: Int? = nil, keeping: Int64? = nil, on connection: PostgresConnection, logger: Logger
    ) async throws -> (count: Int64, bytes: Int64) {
        guard entries != 0 || bytes != 0 else { return (0, 0) }
        let rows = try await connection.query(
            "SELECT evicted_count, evicted_bytes FROM courier_cache_settle(\(entries), \(bytes), \(limit.map(Int64.init)), \(keeping))",
            logger: logger)
        for try await evicted in rows.decode((Int64, Int64).self) { return evicted }
        return (0, 0)
    }
}
