/* hotplus 1.1 -> 1.2: statistics and advice for Citus distributed tables, seen from the
   coordinator; the statistics' own state (hotplus_stat_info) and a reset of every database. */
\echo Use "ALTER EXTENSION hotplus UPDATE TO '1.2'" to load this file. \quit

-- One row per distributed table (hash-distributed, reference or Citus local table; a
-- partitioned table's partitions each have their own row), its counters summed over its
-- shards on every node. Reads every node's hotplus_stat_tables and pg_stat_user_tables
-- with Citus's own remote execution (run_command_on_all_nodes), so it needs Citus and
-- hotplus's shared statistics (hotplus in shared_preload_libraries) on every node; returns
-- no rows where Citus is not installed. A shard replicated on several nodes (reference
-- tables) is counted once, from one placement; `placements` and `hotheap_placements`
-- count all of them, so a table whose shards do not all use hotheap shows it.
CREATE FUNCTION @extschema@.hotplus_distributed_stat_tables(
    OUT relid pg_catalog.regclass, OUT access_method pg_catalog.name,
    OUT placements pg_catalog.int4, OUT hotheap_placements pg_catalog.int4,
    OUT n_tup_upd pg_catalog.int8, OUT n_tup_hot_upd pg_catalog.int8,
    OUT updates pg_catalog.int8, OUT hot_stock pg_catalog.int8,
    OUT hot_by_expression pg_catalog.int8, OUT hot_by_partial pg_catalog.int8,
    OUT hot_by_image pg_catalog.int8, OUT toast_reused pg_catalog.int8,
    OUT nonhot_index_changed pg_catalog.int8, OUT nonhot_page_full pg_catalog.int8,
    OUT nonhot_other pg_catalog.int8, OUT checks_skipped pg_catalog.int8,
    OUT check_time_ms pg_catalog.float8,
    OUT read_scans pg_catalog.int8, OUT read_rows pg_catalog.int8,
    OUT advice pg_catalog.text)
RETURNS SETOF pg_catalog.record
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $function$
#variable_conflict use_column
DECLARE
    -- Every plain heap or hotheap table whose name ends like a shard's, with its counters.
    on_each_node constant text := $remote$
        SELECT coalesce(pg_catalog.json_agg(pg_catalog.json_build_object(
                   'nsp', n.nspname, 'rel', c.relname, 'am', a.amname,
                   'n_tup_upd', s.n_tup_upd, 'n_tup_hot_upd', s.n_tup_hot_upd,
                   'updates', h.updates, 'hot_stock', h.hot_stock,
                   'hot_by_expression', h.hot_by_expression, 'hot_by_partial', h.hot_by_partial,
                   'hot_by_image', h.hot_by_image, 'toast_reused', h.toast_reused,
                   'nonhot_index_changed', h.nonhot_index_changed,
                   'nonhot_page_full', h.nonhot_page_full, 'nonhot_other', h.nonhot_other,
                   'checks_skipped', h.checks_skipped, 'check_time_ms', h.check_time_ms,
                   'read_scans', h.read_scans, 'read_rows', h.read_rows)), '[]')
        FROM pg_catalog.pg_class c
        JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
        JOIN pg_catalog.pg_am a ON a.oid OPERATOR(pg_catalog.=) c.relam
        LEFT JOIN pg_catalog.pg_stat_all_tables s ON s.relid OPERATOR(pg_catalog.=) c.oid
        LEFT JOIN @extschema@.hotplus_stat_tables h ON h.relid OPERATOR(pg_catalog.=) c.oid
        WHERE c.relkind OPERATOR(pg_catalog.=) 'r' AND a.amname IN ('heap', 'hotheap')
          AND c.relname OPERATOR(pg_catalog.~) '_[0-9]+$'
    $remote$;
    node_ids int[];
    node_ok boolean[];
    node_results text[];
    failure text;
BEGIN
    IF pg_catalog.to_regclass('pg_catalog.pg_dist_partition') IS NULL THEN
        RETURN; -- Citus is not installed
    END IF;
    SELECT array_agg(r.nodeid), array_agg(r.success), array_agg(r.result)
      INTO node_ids, node_ok, node_results
      FROM pg_catalog.run_command_on_all_nodes(on_each_node) r;
    SELECT format('node %s: %s', u.id, u.result) INTO failure
      FROM unnest(node_ids, node_ok, node_results) u(id, ok, result) WHERE NOT u.ok LIMIT 1;
    IF failure IS NOT NULL THEN
        RAISE EXCEPTION 'could not read hotplus statistics on every Citus node'
            USING ERRCODE = 'connection_failure', DETAIL = failure;
    END IF;

    RETURN QUERY
    WITH remote AS (
        SELECT dn.groupid, r.*
        FROM unnest(node_ids, node_results) u(id, result)
        JOIN pg_dist_node dn ON dn.nodeid = u.id
        CROSS JOIN LATERAL json_to_recordset(u.result::json) AS r(
            nsp name, rel name, am name, n_tup_upd int8, n_tup_hot_upd int8,
            updates int8, hot_stock int8, hot_by_expression int8, hot_by_partial int8,
            hot_by_image int8, toast_reused int8, nonhot_index_changed int8,
            nonhot_page_full int8, nonhot_other int8, checks_skipped int8,
            check_time_ms float8, read_scans int8, read_rows int8)
    ),
    placed AS (
        SELECT p.logicalrelid, s.shardid, r.*
        FROM pg_dist_partition p
        JOIN pg_class c ON c.oid = p.logicalrelid AND c.relkind = 'r'
        JOIN pg_dist_shard s ON s.logicalrelid = p.logicalrelid
        JOIN pg_dist_placement pl ON pl.shardid = s.shardid
        JOIN remote r ON r.groupid = pl.groupid
         AND shard_name(p.logicalrelid, s.shardid) IN
             (format('%I.%I', r.nsp, r.rel), CASE WHEN r.nsp = 'public' THEN quote_ident(r.rel) END)
    ),
    counted AS ( -- one placement per shard
        SELECT DISTINCT ON (shardid) * FROM placed ORDER BY shardid, groupid
    ),
    totals AS (
        SELECT t.logicalrelid,
               sum(t.n_tup_upd)::int8 AS n_tup_upd, sum(t.n_tup_hot_upd)::int8 AS n_tup_hot_upd,
               sum(t.updates)::int8 AS updates, sum(t.hot_stock)::int8 AS hot_stock,
               sum(t.hot_by_expression)::int8 AS hot_by_expression,
               sum(t.hot_by_partial)::int8 AS hot_by_partial,
               sum(t.hot_by_image)::int8 AS hot_by_image, sum(t.toast_reused)::int8 AS toast_reused,
               sum(t.nonhot_index_changed)::int8 AS nonhot_index_changed,
               sum(t.nonhot_page_full)::int8 AS nonhot_page_full,
               sum(t.nonhot_other)::int8 AS nonhot_other,
               sum(t.checks_skipped)::int8 AS checks_skipped,
               sum(t.check_time_ms)::float8 AS check_time_ms,
               sum(t.read_scans)::int8 AS read_scans, sum(t.read_rows)::int8 AS read_rows
        FROM counted t GROUP BY t.logicalrelid
    ),
    kinds AS (
        SELECT pl.logicalrelid, count(*)::int4 AS placements,
               count(*) FILTER (WHERE pl.am = 'hotheap')::int4 AS hotheap_placements
        FROM placed pl GROUP BY pl.logicalrelid
    ),
    indexes AS ( -- what hotheap can gain on: expression, partial or toastable key columns
        SELECT i.indrelid, count(*) FILTER (
                 WHERE i.indexprs IS NOT NULL OR i.indpred IS NOT NULL OR EXISTS (
                   SELECT FROM pg_attribute att
                   WHERE att.attrelid = i.indrelid AND att.attnum = ANY (i.indkey::int2[])
                     AND att.attlen = -1 AND att.attstorage <> 'p')) AS gainful
        FROM pg_index i GROUP BY i.indrelid
    )
    SELECT p.logicalrelid::regclass, a.amname, coalesce(k.placements, 0), coalesce(k.hotheap_placements, 0),
           t.n_tup_upd, t.n_tup_hot_upd, t.updates, t.hot_stock, t.hot_by_expression,
           t.hot_by_partial, t.hot_by_image, t.toast_reused, t.nonhot_index_changed,
           t.nonhot_page_full, t.nonhot_other, t.checks_skipped, t.check_time_ms,
           t.read_scans, t.read_rows,
           CASE
             WHEN coalesce(k.hotheap_placements, 0) NOT IN (0, coalesce(k.placements, 0))
                  OR (a.amname = 'hotheap') <> (k.hotheap_placements > 0) THEN
               format('mixed: %s of %s shard placements use hotheap, the coordinator''s table %s; run SELECT %s(%L) again to finish the switch',
                      k.hotheap_placements, k.placements, a.amname,
                      CASE WHEN a.amname = 'hotheap' THEN '@extschema@.hotplus_convert' ELSE '@extschema@.hotplus_revert' END,
                      p.logicalrelid::regclass::text)
             WHEN a.amname = 'heap' AND coalesce(ix.gainful, 0) = 0 THEN
               'hotheap would not help: heap''s HOT decision is already exact for these indexes'
             WHEN a.amname = 'heap' THEN
               format('convert: %s%% of %s updates on the shards were HOT; SELECT @extschema@.hotplus_convert(%L) switches every shard without rewriting',
                      CASE WHEN t.n_tup_upd > 0 THEN round(100.0 * t.n_tup_hot_upd / t.n_tup_upd, 1) ELSE 0 END,
                      coalesce(t.n_tup_upd, 0), p.logicalrelid::regclass::text)
             ELSE
               format('hotheap: %s%% of %s updates on the shards HOT, %s of them HOT only thanks to hotheap',
                      CASE WHEN t.n_tup_upd > 0 THEN round(100.0 * t.n_tup_hot_upd / t.n_tup_upd, 1) ELSE 0 END,
                      coalesce(t.n_tup_upd, 0),
                      coalesce(t.hot_by_expression + t.hot_by_partial + t.hot_by_image, 0))
           END
    FROM pg_dist_partition p
    JOIN pg_class c ON c.oid = p.logicalrelid AND c.relkind = 'r'
    JOIN pg_am a ON a.oid = c.relam
    LEFT JOIN totals t ON t.logicalrelid = p.logicalrelid
    LEFT JOIN kinds k ON k.logicalrelid = p.logicalrelid
    LEFT JOIN indexes ix ON ix.indrelid = p.logicalrelid
    WHERE has_table_privilege(p.logicalrelid, 'SELECT')
    ORDER BY p.logicalrelid::regclass::text;
END
$function$;

COMMENT ON FUNCTION @extschema@.hotplus_distributed_stat_tables() IS
  'per Citus distributed table: hotplus statistics summed over its shards on every node, and advice (no rows without Citus)';

CREATE VIEW @extschema@.hotplus_stat_distributed_tables AS
SELECT * FROM @extschema@.hotplus_distributed_stat_tables();

GRANT SELECT ON @extschema@.hotplus_stat_distributed_tables TO PUBLIC;

COMMENT ON VIEW @extschema@.hotplus_stat_distributed_tables IS
  'per Citus distributed table: hotplus statistics summed over its shards on every node, and advice (empty without Citus)';

-- The statistics' own state: the mode, the bound on tracked tables (shared mode), how many
-- tables are tracked (in every database) and how many updates went uncounted because the
-- bound was reached.
CREATE FUNCTION @extschema@.hotplus_stat_info(
    OUT mode pg_catalog.text, OUT max_tracked_tables pg_catalog.int4,
    OUT tracked_tables pg_catalog.int8, OUT untracked_updates pg_catalog.int8)
RETURNS pg_catalog.record
AS 'MODULE_PATHNAME', 'hotplus_stat_info'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION @extschema@.hotplus_stat_info() IS
  'statistics mode, bound, tracked tables and updates left uncounted because the bound was reached';

-- hotplus_stat_reset(all_databases): with true, every database's statistics (superusers).
-- An overload, so that privileges granted on hotplus_stat_reset() stay as they were.
CREATE FUNCTION @extschema@.hotplus_stat_reset(all_databases pg_catalog.bool)
RETURNS pg_catalog.void
AS 'MODULE_PATHNAME', 'hotplus_stat_reset'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;
REVOKE ALL ON FUNCTION @extschema@.hotplus_stat_reset(pg_catalog.bool) FROM PUBLIC;

COMMENT ON FUNCTION @extschema@.hotplus_stat_reset(pg_catalog.bool) IS
  'clear the statistics of the current database, or with true of every database (superusers only)';
