import CourierCache
import Foundation
import PostgresNIO

/// Flights (see `CacheFlightClaim`): one row per key some server is fetching for the fleet, in
/// `courier_cache_flight`, its claim timed by the database's clock. A lookup that finds nothing
/// claims it in the same statement; the put that stores the key deletes it in its transaction.
extension PostgresCacheStorage {
    /// ``lookup(_:inlineBodyLimit:)`` that claims the key's flight when nothing is stored under it:
    /// still one round trip, one prepared statement.
    public func lookup(_ key: CacheKey, inlineBodyLimit: Int, claimingFlight claim: CacheFlightClaim) async throws -> CacheLookup {
        try await run("lookup") { [logger] client in
            var found = CacheLookup(variants: [], clearMark: CacheClearMark(generation: 0))
            for try await row in try await client.execute(
                ClaimingLookupStatement(lookup: LookupStatement(key: key, inlineBodyLimit: inlineBodyLimit), claim: claim),
                logger: logger)
            {
                if let yours = row.yours { found.flight = yours ? .yours : .another }
                Self.add(row.lookup, of: key, inlineBodyLimit: inlineBodyLimit, to: &found)
            }
            return found
        }
    }

    /// Claims the key's flight whatever is stored: taken when no claim holds or the claim is the
    /// claimant's own (then extended).
    public func claimFlight(of key: CacheKey, _ claim: CacheFlightClaim) async throws -> CacheFlightTurn? {
        try await run("flight") { [logger] client in
            let rows = try await client.query(
                """
                INSERT INTO courier_cache_flight AS f (partition_key, url, method, claimant, claimed_until)
                VALUES (\(key.partition), \(key.url), \(key.method), \(claim.claimant),
                    extract(epoch FROM clock_timestamp()) + \(claim.duration.postgresSeconds))
                \(unescaped: Self.claimConflict)
                RETURNING f.claimant = \(claim.claimant)
                """, logger: logger)
            for try await yours in rows.decode(Bool.self) { return yours ? .yours : .another }
            return nil
        }
    }

    public func isFlightUnderway(of key: CacheKey, byAnotherThan claimant: UUID) async throws -> Bool {
        try await run("flight") { [logger] client in
            let rows = try await client.query(
                """
                SELECT EXISTS (SELECT 1 FROM courier_cache_flight WHERE partition_key = \(key.partition) AND url = \(key.url)
                    AND method = \(key.method) AND claimant <> \(claimant) AND claimed_until >= extract(epoch FROM clock_timestamp()))
                """, logger: logger)
            for try await underway in rows.decode(Bool.self) { return underway }
            return false
        }
    }

    public func endFlight(of key: CacheKey, claimant: UUID) async throws {
        try await run("flight") { [logger] client in
            _ = try await client.query(
                """
                DELETE FROM courier_cache_flight WHERE partition_key = \(key.partition) AND url = \(key.url)
                    AND method = \(key.method) AND claimant = \(claimant)
                """, logger: logger)
        }
    }

    /// A claim meeting another: the new claimant takes it when the old claim ran out, the same
    /// claimant extends it, and otherwise it stays as it was. Always updating (never DO NOTHING)
    /// makes RETURNING give the row's claimant either way, even one that committed after the
    /// statement's snapshot.
    static let claimConflict = """
        ON CONFLICT (partition_key, url, method) DO UPDATE SET
            claimant = CASE WHEN f.claimed_until < extract(epoch FROM clock_timestamp()) OR f.claimant = EXCLUDED.claimant
                THEN EXCLUDED.claimant ELSE f.claimant END,
            claimed_until = CASE WHEN f.claimed_until < extract(epoch FROM clock_timestamp()) OR f.claimant = EXCLUDED.claimant
                THEN EXCLUDED.claimed_until ELSE f.claimed_until END
        """
}

/// ``LookupStatement`` that first claims the key's flight when no variant of it is stored; each
/// row also says whether the claim is the claimant's (NULL when nothing was claimed).
struct ClaimingLookupStatement: PostgresPreparedStatement {
    typealias Row = (yours: Bool?, lookup: LookupStatement.Row)

    static let sql = """
        WITH claim AS (
            INSERT INTO courier_cache_flight AS f (partition_key, url, method, claimant, claimed_until)
            SELECT $1, $2, $3, $5, extract(epoch FROM clock_timestamp()) + $6
            WHERE NOT EXISTS (SELECT 1 FROM courier_cache_entry WHERE partition_key = $1 AND url = $2 AND method = $3)
            \(PostgresCacheStorage.claimConflict)
            RETURNING f.claimant = $5 AS yours)
        SELECT (SELECT yours FROM claim), l.* FROM (\(LookupStatement.sql)) l ORDER BY l.id
        """

    let lookup: LookupStatement
    let claim: CacheFlightClaim

    func makeBindings() throws -> PostgresBindings {
        var bindings = try lookup.makeBindings()
        bindings.append(claim.claimant)
        bindings.append(claim.duration.postgresSeconds)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let (yours, generation, id, vary, status, headers, requestTime, responseTime, bodySize, storedAt, lastAccess, body) =
            try row.decode((Bool?, Int64, Int64?, String?, Int32?, Data?, Double?, Double?, Int64?, Double?, Double?, Data?).self)
        return (yours, LookupStatement.row(
            (generation, id, vary, status, headers, requestTime, responseTime, bodySize, storedAt, lastAccess, body)))
    }
}

extension Duration {
    /// The duration in seconds, as the flights' times are kept (Courier's own conversion is not
    /// public API, which this storage keeps to).
    fileprivate var postgresSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
