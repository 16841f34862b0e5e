import CourierCache
import Foundation
import HTTPTypes
import OpenAPIRuntime
import PostgresNIO

extension PostgresCacheStorage {
    public func variants(of key: CacheKey, inlineBodyLimit: Int) async throws -> [StoredVariant] {
        try await lookup(key, inlineBodyLimit: inlineBodyLimit).variants
    }

    /// One round trip, its statement prepared once per connection: each variant's metadata and,
    /// when it is at most `inlineBodyLimit` bytes, its body; and the partition's clear generation,
    /// even when no variant is stored.
    public func lookup(_ key: CacheKey, inlineBodyLimit: Int) async throws -> CacheLookup {
        try await run("lookup") { [logger] client in
            var found = CacheLookup(variants: [], clearMark: CacheClearMark(generation: 0))
            for try await (generation, variant) in try await client.execute(
                LookupStatement(key: key, inlineBodyLimit: inlineBodyLimit), logger: logger)
            {
                Self.add((generation, variant), of: key, inlineBodyLimit: inlineBodyLimit, to: &found)
            }
            return found
        }
    }

    /// Adds a lookup's row to what it found: the clear mark, and the variant unless it doesn't decode.
    static func add(_ row: LookupStatement.Row, of key: CacheKey, inlineBodyLimit: Int, to found: inout CacheLookup) {
        found.clearMark = CacheClearMark(generation: row.generation)
        guard let (id, vary, status, headers, requestTime, responseTime, bodySize, storedAt, lastAccess, body) = row.variant,
              let metadata = Self.metadata(
            id: id, key: key, vary: vary, status: status, headers: headers, requestTime: requestTime,
            responseTime: responseTime, bodySize: bodySize, storedAt: storedAt, lastAccess: lastAccess)
        else { return }
        let inline = bodySize <= inlineBodyLimit ? (body ?? Data()) : nil
        // A body read whole must be as long as recorded: chunks lost or added (by hand, by
        // another program) are no answer, and the variant is left out.
        if let inline, inline.count != metadata.bodySize { return }
        found.variants.append(StoredVariant(metadata: metadata, body: inline))
    }

    /// The partition's clear generation: 0 until its first clear noted.
    public func clearMark(of partition: String) async throws -> CacheClearMark? {
        try await run("clearMark") { [logger] client in
            let rows = try await client.query(
                "SELECT COALESCE((SELECT generation FROM courier_cache_clear WHERE partition_key = \(partition)), 0)", logger: logger)
            for try await generation in rows.decode(Int64.self) { return CacheClearMark(generation: generation) }
            return CacheClearMark(generation: 0)
        }
    }

    public func variants(in partition: String?) async throws -> [VariantMetadata] {
        try await run("variants") { [logger] client in
            let rows = try await client.query(
                """
                SELECT id, vary_key, status, headers, request_time, response_time, body_size, stored_at, last_access,
                    partition_key, url, method
                FROM courier_cache_entry WHERE \(partition)::text IS NULL OR partition_key = \(partition)
                ORDER BY id
                """, logger: logger)
            var entries: [VariantMetadata] = []
            for try await row in rows {
                let (id, vary, status, headers, requestTime, responseTime, bodySize, storedAt, lastAccess, partition, url, method) =
                    try row.decode((Int64, String, Int32, Data, Double, Double, Int64, Double, Double, String, String, String).self)
                guard let metadata = Self.metadata(
                    id: id, key: CacheKey(method: method, normalizedURL: url, partition: partition), vary: vary, status: status,
                    headers: headers, requestTime: requestTime, responseTime: responseTime, bodySize: bodySize,
                    storedAt: storedAt, lastAccess: lastAccess)
                else { continue }
                entries.append(metadata)
            }
            return entries
        }
    }

    /// The body at `offsets`, read a chunk row at a time as the reader asks (one query each, each
    /// within ``timeout``): never more than one chunk in memory. A variant whose chunks don't add
    /// up to its recorded size is not served; one replaced while read ends the stream with an
    /// error rather than mixing two bodies.
    public func body(of variant: VariantMetadata, offsets: Range<Int>) async throws -> HTTPBody? {
        guard offsets.lowerBound >= 0, offsets.upperBound <= variant.bodySize else { return nil }
        let stored = try await run("body") { [logger] client -> Int64? in
            let rows = try await client.query(
                """
                SELECT COALESCE((SELECT SUM(octet_length(data)) FROM courier_cache_chunk WHERE entry_id = e.id), 0)::bigint
                FROM courier_cache_entry e WHERE e.id = \(variant.id) AND e.partition_key = \(variant.key.partition)
                    AND e.url = \(variant.key.url) AND e.method = \(variant.key.method)
                """, logger: logger)
            for try await size in rows.decode(Int64.self) { return size }
            return nil
        }
        guard stored == Int64(variant.bodySize) else { return nil }
        let reader = ChunkReader(storage: self, id: variant.id, offsets: offsets)
        return HTTPBody(reader, length: .known(Int64(offsets.count)), iterationBehavior: .single)
    }

    /// The chunk row holding byte `position` of a body, with the offset it starts at; nil when
    /// the variant is gone.
    func chunk(at position: Int, of id: Int64) async throws -> (start: Int, data: Data)? {
        try await run("body") { [logger] client in
            let rows = try await client.query(
                """
                SELECT start, data FROM courier_cache_chunk WHERE entry_id = \(id) AND start <= \(Int64(position))
                ORDER BY start DESC LIMIT 1
                """, logger: logger)
            for try await (start, data) in rows.decode((Int64, Data).self) { return (Int(start), data) }
            return nil
        }
    }

    public func totals() async throws -> CacheTotals {
        try await run("totals") { [logger] client in
            let rows = try await client.query("SELECT entries, bytes FROM courier_cache_totals WHERE id = 1", logger: logger)
            for try await (entries, bytes) in rows.decode((Int64, Int64).self) {
                return CacheTotals(count: Int(entries), totalBytes: Int(bytes))
            }
            return CacheTotals()
        }
    }

    /// A row's metadata; nil when it doesn't decode (written by something else).
    static func metadata(
        id: Int64, key: CacheKey, vary: String, status: Int32, headers: Data, requestTime: Double, responseTime: Double,
        bodySize: Int64, storedAt: Double, lastAccess: Double
    ) -> VariantMetadata? {
        guard (100...999).contains(status), bodySize >= 0,
              let selection = Data(vary.utf8).withUnsafeBytes(VaryCoding.decode),
              let fields = headers.withUnsafeBytes(HeaderCoding.decode)
        else { return nil }
        return VariantMetadata(
            id: id, key: key, varySelection: selection, status: Int(status), headers: fields,
            requestTime: Date(timeIntervalSince1970: requestTime), responseTime: Date(timeIntervalSince1970: responseTime),
            bodySize: Int(bodySize), storedAt: Date(timeIntervalSince1970: storedAt), lastAccess: Date(timeIntervalSince1970: lastAccess))
    }
}

/// The lookup of a key's variants, with the bodies of at most `$4` bytes, each row with the
/// partition's clear generation; one row without a variant when none is stored. A prepared
/// statement, parsed and planned once per connection of the pool (postgres-nio keeps it), not on
/// every hit.
struct LookupStatement: PostgresPreparedStatement {
    typealias Variant = (Int64, String, Int32, Data, Double, Double, Int64, Double, Double, Data?)
    typealias Row = (generation: Int64, variant: Variant?)

    static let sql = """
        SELECT m.generation, e.id, e.vary_key, e.status, e.headers, e.request_time, e.response_time, e.body_size, e.stored_at,
            e.last_access, CASE WHEN e.body_size <= $4
                THEN (SELECT string_agg(c.data, ''::bytea ORDER BY c.start) FROM courier_cache_chunk c WHERE c.entry_id = e.id) END
        FROM (SELECT COALESCE((SELECT generation FROM courier_cache_clear WHERE partition_key = $1), 0) AS generation) m
        LEFT JOIN courier_cache_entry e ON e.partition_key = $1 AND e.url = $2 AND e.method = $3
        ORDER BY e.id
        """

    let key: CacheKey
    let inlineBodyLimit: Int

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(key.partition)
        bindings.append(key.url)
        bindings.append(key.method)
        bindings.append(Int64(inlineBodyLimit))
        return bindings
    }

    /// A row's columns as they decode.
    typealias Columns = (Int64, Int64?, String?, Int32?, Data?, Double?, Double?, Int64?, Double?, Double?, Data?)

    func decodeRow(_ row: PostgresRow) throws -> Row {
        Self.row(try row.decode(Columns.self))
    }

    static func row(_ columns: Columns) -> Row {
        let (generation, id, vary, status, headers, requestTime, responseTime, bodySize, storedAt, lastAccess, body) = columns
        guard let id, let vary, let status, let headers, let requestTime, let responseTime, let bodySize, let storedAt, let lastAccess
        else { return (generation, nil) }
        return (generation, (id, vary, status, headers, requestTime, responseTime, bodySize, storedAt, lastAccess, body))
    }
}

/// A stored body's bytes at some offsets, read by its one iterator a chunk row at a time.
struct ChunkReader: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let storage: PostgresCacheStorage
    let id: Int64
    let offsets: Range<Int>

    struct AsyncIterator: AsyncIteratorProtocol {
        let reader: ChunkReader
        var position: Int

        mutating func next() async throws -> ArraySlice<UInt8>? {
            guard position < reader.offsets.upperBound else { return nil }
            guard let (chunkStart, data) = try await reader.storage.chunk(at: position, of: reader.id) else {
                throw PostgresCacheError.bodyGone(id: reader.id)
            }
            let start = position - chunkStart
            let end = Swift.min(data.count, reader.offsets.upperBound - chunkStart)
            guard start < end else { throw PostgresCacheError.bodyGone(id: reader.id) }
            position += end - start
            return ArraySlice(data[data.startIndex + start ..< data.startIndex + end])
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(reader: self, position: offsets.lowerBound) }
}
