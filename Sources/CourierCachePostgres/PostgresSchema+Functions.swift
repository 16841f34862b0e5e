extension PostgresSchema {
    /// The store's two functions (schema version 3, the put's clear check by generation since 4), so
    /// that a store of a body within one chunk is one statement: one round trip, one implicit
    /// transaction. Each is created or replaced, so a later version's migration states them whole.
    ///
    /// `courier_cache_put` takes the locks, loses to a clear of the partition after its mark (any
    /// clear still noted, without a mark), replaces the variant, inserts the entry, ends the key's
    /// flight (since version 5) and inserts the body's first chunk and, when that was the whole
    /// body, settles. It is VOLATILE (the default), so each of its statements takes a fresh snapshot
    /// under READ COMMITTED: the clear check sees a clear that committed while the locks were
    /// awaited. Its row: the stored id (NULL when the response was larger than the limit and
    /// only the old variant went), what it replaced, and what settling evicted; no row when a
    /// clear won.
    ///
    /// `courier_cache_settle` adds to the totals row, only when something changed (so a write
    /// that changes no size never waits for it), then evicts least recently used variants
    /// (never `p_keeping`) down to `p_limit` (NULL: no eviction), skipping rows another
    /// transaction holds, so two instances evicting at once never wait on each other.
    static let storeFunctions = [
        """
        CREATE OR REPLACE FUNCTION courier_cache_settle(
            p_entries bigint, p_bytes bigint, p_limit bigint, p_keeping bigint,
            OUT evicted_count bigint, OUT evicted_bytes bigint)
        LANGUAGE plpgsql AS $$
        DECLARE
            total bigint;
            excess bigint;
            victims bigint[];
            candidate record;
            gone_count bigint;
            gone_bytes bigint;
        BEGIN
            evicted_count := 0;
            evicted_bytes := 0;
            IF p_entries = 0 AND p_bytes = 0 THEN
                RETURN;
            END IF;
            UPDATE courier_cache_totals SET entries = entries + p_entries, bytes = bytes + p_bytes
            WHERE id = 1 RETURNING bytes INTO total;
            WHILE p_limit IS NOT NULL AND total > p_limit LOOP
                excess := total - p_limit;
                victims := '{}';
                FOR candidate IN
                    SELECT id, body_size + meta_size AS size FROM courier_cache_entry
                    WHERE id IS DISTINCT FROM p_keeping ORDER BY use_order, id LIMIT 64 FOR UPDATE SKIP LOCKED
                LOOP
                    EXIT WHEN excess <= 0;
                    victims := victims || candidate.id;
                    excess := excess - candidate.size;
                END LOOP;
                EXIT WHEN cardinality(victims) = 0;
                WITH gone AS (DELETE FROM courier_cache_entry WHERE id = ANY (victims) RETURNING body_size + meta_size AS size)
                SELECT count(*), COALESCE(sum(size), 0)::bigint INTO gone_count, gone_bytes FROM gone;
                UPDATE courier_cache_totals SET entries = entries - gone_count, bytes = bytes - gone_bytes
                WHERE id = 1 RETURNING bytes INTO total;
                evicted_count := evicted_count + gone_count;
                evicted_bytes := evicted_bytes + gone_bytes;
            END LOOP;
        END
        $$
        """,
        """
        CREATE OR REPLACE FUNCTION courier_cache_put(
            p_partition text, p_url text, p_method text, p_vary text, p_status integer, p_headers bytea,
            p_request_time double precision, p_response_time double precision, p_body_size bigint, p_meta_size bigint,
            p_stamp double precision, p_clear_mark bigint, p_partition_seed bigint, p_limit bigint,
            p_first_chunk bytea, p_whole boolean)
        RETURNS TABLE (stored_id bigint, replaced_count bigint, replaced_bytes bigint, evicted_count bigint, evicted_bytes bigint)
        LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_advisory_xact_lock_shared(hashtextextended(p_partition, p_partition_seed)),
                pg_advisory_xact_lock(hashtextextended(concat_ws(E'\\n', p_partition, p_url, p_method, p_vary), 0));
            IF EXISTS (SELECT 1 FROM courier_cache_clear
                       WHERE partition_key = p_partition AND (p_clear_mark IS NULL OR generation > p_clear_mark)) THEN
                RETURN;
            END IF;
            WITH gone AS (
                DELETE FROM courier_cache_entry
                WHERE partition_key = p_partition AND url = p_url AND method = p_method AND vary_key = p_vary
                RETURNING body_size + meta_size AS size)
            SELECT count(*), COALESCE(sum(size), 0)::bigint INTO replaced_count, replaced_bytes FROM gone;
            evicted_count := 0;
            evicted_bytes := 0;
            IF p_body_size + p_meta_size > p_limit THEN
                PERFORM courier_cache_settle(-replaced_count, -replaced_bytes, NULL, NULL);
                RETURN NEXT;
                RETURN;
            END IF;
            INSERT INTO courier_cache_entry (partition_key, url, method, vary_key, status, headers, request_time,
                response_time, body_size, meta_size, stored_at, last_access, use_order)
            VALUES (p_partition, p_url, p_method, p_vary, p_status, p_headers, p_request_time, p_response_time,
                p_body_size, p_meta_size, p_stamp, p_stamp, nextval('courier_cache_use'))
            RETURNING id INTO stored_id;
            DELETE FROM courier_cache_flight WHERE partition_key = p_partition AND url = p_url AND method = p_method;
            IF octet_length(p_first_chunk) > 0 THEN
                INSERT INTO courier_cache_chunk (entry_id, start, data) VALUES (stored_id, 0, p_first_chunk);
            END IF;
            IF p_whole THEN
                SELECT s.evicted_count, s.evicted_bytes INTO evicted_count, evicted_bytes
                FROM courier_cache_settle(1 - replaced_count, p_body_size + p_meta_size - replaced_bytes, p_limit, stored_id) s;
            END IF;
            RETURN NEXT;
        END
        $$
        """,
    ]
}
