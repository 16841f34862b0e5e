import CourierCache
import Foundation
import PostgresNIO

/// `courier_cache_put` (``PostgresSchema/storeFunctions``), prepared once per connection of the
/// pool: a variant's entry and its body's first chunk, and, when that chunk is the whole body,
/// the totals and eviction too.
struct PutStatement: PostgresPreparedStatement {
    /// The stored id (nil: the response was larger than the limit), the variant it replaced
    /// (count, bytes) and what settling evicted (count, bytes). No row: a clear of the partition won.
    typealias Row = (storedID: Int64?, replacedCount: Int64, replacedBytes: Int64, evictedCount: Int64, evictedBytes: Int64)

    static let sql = "SELECT * FROM courier_cache_put($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)"

    let response: VariantToStore
    let bodySize: Int
    let metaSize: Int
    /// When the row is stamped stored and used.
    let stamp: Date
    let limit: Int
    let firstChunk: Data

    /// Whether `firstChunk` is the whole body, so the statement settles the totals and evicts.
    var whole: Bool { firstChunk.count == bodySize }

    func makeBindings() throws -> PostgresBindings {
        let key = response.key
        var bindings = PostgresBindings(capacity: 16)
        bindings.append(key.partition)
        bindings.append(key.url)
        bindings.append(key.method)
        bindings.append(response.varySelection.canonicalKey)
        bindings.append(Int32(response.status))
        try bindings.append(HeaderCoding.encode(response.headers))
        bindings.append(response.requestTime.timeIntervalSince1970)
        bindings.append(response.responseTime.timeIntervalSince1970)
        bindings.append(Int64(bodySize))
        bindings.append(Int64(metaSize))
        bindings.append(stamp.timeIntervalSince1970)
        // A store loses to a clear of the partition after the mark read before its request left.
        bindings.append(response.clearMark?.generation)
        bindings.append(PostgresCacheStorage.partitionLockSeed)
        bindings.append(Int64(limit))
        try bindings.append(firstChunk)
        bindings.append(whole)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let (id, replacedCount, replacedBytes, evictedCount, evictedBytes) = try row.decode((Int64?, Int64, Int64, Int64, Int64).self)
        return (id, replacedCount, replacedBytes, evictedCount, evictedBytes)
    }

    /// What the store did, from the statement's row (with the eviction of a larger body's own
    /// settling), or nil when a clear won.
    func outcome(_ row: Row?, evicted: (count: Int64, bytes: Int64)? = nil) -> StoreOutcome {
        guard let row else { return StoreOutcome() }
        let evicted = evicted ?? (row.evictedCount, row.evictedBytes)
        return StoreOutcome(
            stored: row.storedID.map { response.metadata(id: $0, bodySize: bodySize, now: stamp) },
            evictedCount: Int(evicted.count), evictedBytes: Int(evicted.bytes))
    }
}
