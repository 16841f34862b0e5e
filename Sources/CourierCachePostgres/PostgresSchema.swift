import Foundation
import Logging
import PostgresNIO

/// The storage's tables, created and migrated by version on first use.
///
/// - `courier_cache_meta`: the schema version and the secret key (made once, by the first instance,
///   unless the app gives its own).
/// - `courier_cache_entry`: one row per stored variant, unique by key and vary selection; ids
///   come from an identity column, never given twice; `use_order` from a sequence, so every
///   instance orders uses alike.
/// - `courier_cache_chunk`: a body in chunks, each by the offset it starts at (whatever chunk size
///   the writer had), removed with its entry.
/// - `courier_cache_totals`: one row with the count and bytes, kept by every write in its own
///   transaction, so neither eviction nor statistics scan the table.
/// - `courier_cache_clear`: each cleared partition's clear generation (a user's sign-out), from one
///   sequence, so higher after every clear: a lookup reads it with the variants, and a store whose
///   request left before a later clear loses, whichever server makes it, whatever its clock says.
///   Kept a day (`cleared_at`), longer than any request is on its way.
/// - `courier_cache_flight`: a key some server is fetching for the fleet (see `CacheFlightClaim`),
///   by whom and until when (the database's clock, seconds since 1970); ended by the put that
///   stores the key, by its claimant, or by running out (a clear sweeps those that did).
/// - `courier_cache_put` and `courier_cache_settle`: the store, as functions the server runs, so
///   that a small body is stored in one round trip (``storeFunctions``).
enum PostgresSchema {
    /// The version this library writes; a database at a later one is refused, not downgraded.
    static let version = 5

    /// Each version's statements, applied in order from the database's version to ``version``.
    static let migrations: [Int: [String]] = [
        1: [
            """
            CREATE TABLE courier_cache_entry (
                id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                partition_key text NOT NULL, url text NOT NULL, method text NOT NULL, vary_key text NOT NULL,
                status integer NOT NULL, headers bytea NOT NULL,
                request_time double precision NOT NULL, response_time double precision NOT NULL,
                body_size bigint NOT NULL, meta_size bigint NOT NULL,
                stored_at double precision NOT NULL, last_access double precision NOT NULL, use_order bigint NOT NULL,
                UNIQUE (partition_key, url, method, vary_key))
            """,
            "CREATE INDEX courier_cache_entry_url ON courier_cache_entry (url text_pattern_ops)",
            "CREATE INDEX courier_cache_entry_use ON courier_cache_entry (use_order)",
            "CREATE SEQUENCE courier_cache_use",
            """
            CREATE TABLE courier_cache_chunk (
                entry_id bigint NOT NULL REFERENCES courier_cache_entry (id) ON DELETE CASCADE,
                start bigint NOT NULL, data bytea NOT NULL, PRIMARY KEY (entry_id, start))
            """,
            """
            CREATE TABLE courier_cache_totals (
                id integer PRIMARY KEY CHECK (id = 1), entries bigint NOT NULL, bytes bigint NOT NULL)
            """,
            "INSERT INTO courier_cache_totals (id, entries, bytes) VALUES (1, 0, 0)",
        ],
        2: [
            "CREATE TABLE courier_cache_clear (partition_key text PRIMARY KEY, cleared_at double precision NOT NULL)"
        ],
        3: storeFunctions,
        // Clear generations instead of clear times (a server whose clock ran ahead won over a
        // sign-out): existing notes get one each, the store takes a mark instead of a send time.
        4: [
            "CREATE SEQUENCE courier_cache_clear_generation",
            "ALTER TABLE courier_cache_clear ADD COLUMN generation bigint NOT NULL DEFAULT nextval('courier_cache_clear_generation')",
            """
            DROP FUNCTION IF EXISTS courier_cache_put(text, text, text, text, integer, bytea, double precision, double precision,
                bigint, bigint, double precision, double precision, bigint, bigint, bytea, boolean)
            """,
        ] + storeFunctions,
        // Flights: the put ends the key's. Unlogged: a claim is worth nothing after a crash, and a
        // lookup that claims one then commits without waiting for the WAL to reach the disk.
        5: [
            """
            CREATE UNLOGGED TABLE courier_cache_flight (
                partition_key text NOT NULL, url text NOT NULL, method text NOT NULL,
                claimant uuid NOT NULL, claimed_until double precision NOT NULL,
                PRIMARY KEY (partition_key, url, method))
            """
        ] + storeFunctions,
    ]

    /// Creates or migrates the tables and returns the secret key, in one transaction under an
    /// advisory lock: instances that start at once wait for the first, then find its work done.
    /// The app's own key (`appKey`) is returned as it is, and never written to the database.
    static func prepare(_ client: PostgresClient, logger: Logger, appKey: [UInt8]?) async throws -> [UInt8] {
        // Its own errors (a newer schema, a short key) come out as they are, not wrapped.
        try await PostgresCacheStorage.transaction(client, logger: logger) { connection in
            // A constant of this library's own: "courier_cache" in ASCII, folded into 64 bits.
            try await connection.query("SELECT pg_advisory_xact_lock(\(Int64(0x636f_7572_6965_7263)))", logger: logger)
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS courier_cache_meta (name text PRIMARY KEY, value bytea NOT NULL)", logger: logger)
            var current = 0
            for try await stored in try await connection.query(
                "SELECT value FROM courier_cache_meta WHERE name = 'version'", logger: logger
            ).decode(Data.self) {
                current = Int(String(decoding: stored, as: UTF8.self)) ?? 0
            }
            guard current <= version else { throw PostgresCacheError.newerSchema(current) }
            for step in stride(from: current + 1, through: version, by: 1) {
                for statement in migrations[step] ?? [] {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
            }
            let written = Data(String(version).utf8)
            try await connection.query(
                """
                INSERT INTO courier_cache_meta (name, value) VALUES ('version', \(written))
                ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value
                """, logger: logger)
            if let appKey { return appKey }
            var generator = SystemRandomNumberGenerator()
            let fresh = Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
            try await connection.query(
                "INSERT INTO courier_cache_meta (name, value) VALUES ('secret_key', \(fresh)) ON CONFLICT (name) DO NOTHING",
                logger: logger)
            var key = fresh
            for try await stored in try await connection.query(
                "SELECT value FROM courier_cache_meta WHERE name = 'secret_key'", logger: logger
            ).decode(Data.self) {
                key = stored
            }
            guard key.count >= PostgresCacheStorage.minimumSecretKeySize else {
                throw PostgresCacheError.shortSecretKey(bytes: key.count)
            }
            return Array(key)
        }
    }
}
