/* hotplus 1.5 -> 1.6: one section per change, each appended on its own. */
\echo Use "ALTER EXTENSION hotplus UPDATE TO '1.6'" to load this file. \quit

/* ---- Issue 53: safe against its own users ------------------------------------------------ */
/* Functions this script replaces with others (their result columns change) take the
   privileges a DBA gave the ones they replace: src/am/upgrade_privileges.cpp. */
CREATE FUNCTION @extschema@.hotplus_take_privileges(pg_catalog.text, pg_catalog.text)
RETURNS pg_catalog.void AS 'MODULE_PATHNAME', 'hotplus_take_privileges' LANGUAGE C STRICT;

/* The statistics' own state. Shared memory's bound is no longer first come, first served:
   when it is full, the least used entries make room (as pg_stat_statements does), and
   evicted_tables / evicted_indexes count them. The counts of every database (tracked_tables,
   untracked_updates, evicted_*) are shown only to roles with the privileges of
   pg_read_all_stats; everyone sees the current database's tracked tables
   (database_tracked_tables). */
CREATE FUNCTION @extschema@.hotplus_stat_info_next(
    OUT mode pg_catalog.text, OUT max_tracked_tables pg_catalog.int4,
    OUT tracked_tables pg_catalog.int8, OUT untracked_updates pg_catalog.int8,
    OUT database_tracked_tables pg_catalog.int8,
    OUT evicted_tables pg_catalog.int8, OUT evicted_indexes pg_catalog.int8)
RETURNS pg_catalog.record
AS 'MODULE_PATHNAME', 'hotplus_stat_info'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;
SELECT @extschema@.hotplus_take_privileges('hotplus_stat_info', 'hotplus_stat_info_next');
DROP FUNCTION @extschema@.hotplus_stat_info();
ALTER FUNCTION @extschema@.hotplus_stat_info_next() RENAME TO hotplus_stat_info;
COMMENT ON FUNCTION @extschema@.hotplus_stat_info() IS
  'statistics mode, bound, tracked tables (every database: for pg_read_all_stats; this database: for everyone), updates left uncounted, entries evicted to make room at the bound';

/* The advice names hotplus's schema as SQL must (format('%I')), read at run time: the
   schema was spliced into quoted format strings before (the CVE-2023-39417 pattern), which a
   schema name with a % or one that needs quoting made wrong. Same signature: privileges on
   it stay. */
CREATE OR REPLACE FUNCTION @extschema@.hotplus_advise(
    OUT relid pg_catalog.regclass,
    OUT access_method pg_catalog.name,
    OUT expression_indexes pg_catalog.int4,
    OUT partial_indexes pg_catalog.int4,
    OUT toastable_indexed_columns pg_catalog.int4,
    OUT updates pg_catalog.int8,
    OUT hot_share pg_catalog.numeric,
    OUT fillfactor pg_catalog.int4,
    OUT suggested_fillfactor pg_catalog.int4,
    OUT advice pg_catalog.text)
RETURNS SETOF pg_catalog.record
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $$
WITH ext AS ( -- the schema hotplus is in, as SQL names it (the advice's commands name it)
    SELECT format('%I', n.nspname) AS schema
    FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
    WHERE e.extname = 'hotplus'
),
tables AS (
    SELECT c.oid, a.amname,
           coalesce((SELECT substring(o FROM 'fillfactor=(\d+)')::int
                     FROM unnest(c.reloptions) o WHERE o LIKE 'fillfactor=%'), 100) AS ff
    FROM pg_class c
    JOIN pg_am a ON a.oid = c.relam
    WHERE c.relkind = 'r' AND a.amname IN ('heap', 'hotheap')
      AND c.relnamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
      AND c.relnamespace::regnamespace::text NOT LIKE 'pg_toast%'
      AND has_table_privilege(c.oid, 'SELECT')
),
indexes AS (
    SELECT i.indrelid AS oid,
           count(*) FILTER (WHERE i.indexprs IS NOT NULL)::int AS expr,
           count(*) FILTER (WHERE i.indpred IS NOT NULL)::int AS part
    FROM pg_index i GROUP BY i.indrelid
),
toastable AS (
    SELECT i.indrelid AS oid, count(DISTINCT att.attnum)::int AS cols
    FROM pg_index i
    JOIN pg_attribute att ON att.attrelid = i.indrelid AND att.attnum = ANY (i.indkey::int2[])
    WHERE att.attlen = -1 AND att.attstorage <> 'p'
    GROUP BY i.indrelid
),
usage AS (
    SELECT s.relid AS oid, s.n_tup_upd AS upd, s.n_tup_hot_upd AS hot
    FROM pg_stat_user_tables s
),
hp AS (
    -- The updates a lower fillfactor would have made HOT: those that found no room where no
    -- index changed, counted, and of those whose indexes were not evaluated (HOT was
    -- impossible), the share a random sample found unchanged (1.4).
    SELECT h.relid AS oid, h.updates,
           h.nonhot_page_full + least(h.unchecked_hot_estimate, h.nonhot_page_full_unchecked) AS room_hot,
           least(h.unchecked_hot_estimate, h.nonhot_page_full_unchecked) AS room_hot_estimated,
           h.nonhot_page_full_unchecked AS unchecked,
           h.hot_stock + h.hot_by_expression + h.hot_by_partial + h.hot_by_image AS hot,
           h.hot_by_expression + h.hot_by_partial + h.hot_by_image AS gained
    FROM @extschema@.hotplus_stat_tables h
),
facts AS (
    SELECT t.oid, t.amname, t.ff,
           coalesce(ix.expr, 0) AS expr, coalesce(ix.part, 0) AS part,
           coalesce(tc.cols, 0) AS toast_cols,
           -- A hotheap table's figures all come from hotplus's counters when it has any
           -- (one epoch: since hotplus_stat_reset() or the server's start), else from
           -- pg_stat_user_tables; never a mix of the two.
           CASE WHEN t.amname = 'hotheap' AND hp.updates IS NOT NULL THEN hp.updates
                ELSE coalesce(u.upd, 0) END AS upd,
           CASE WHEN t.amname = 'hotheap' AND hp.updates IS NOT NULL THEN hp.hot
                ELSE coalesce(u.hot, 0) END AS hot,
           hp.updates AS hp_updates, hp.room_hot, hp.room_hot_estimated, hp.unchecked, hp.gained
    FROM tables t
    LEFT JOIN indexes ix ON ix.oid = t.oid
    LEFT JOIN toastable tc ON tc.oid = t.oid
    LEFT JOIN usage u ON u.oid = t.oid
    LEFT JOIN hp ON hp.oid = t.oid
),
judged AS (
    SELECT f.*,
           CASE WHEN f.upd > 0 THEN round(100.0 * f.hot / f.upd, 1) END AS share,
           -- A fillfactor only on enough evidence: 1,000 updates, a tenth of them HOT but for
           -- the room; never 50 or below, nor the table's own.
           CASE WHEN f.hp_updates >= 1000 AND f.room_hot * 10 > f.hp_updates AND least(f.ff, 100) > 50
                THEN greatest(50, least(f.ff, 100) - 20) END AS ff_suggested
    FROM facts f
)
SELECT j.oid::regclass, j.amname, j.expr, j.part, j.toast_cols, j.upd, j.share, j.ff, j.ff_suggested,
       CASE
         WHEN j.amname = 'heap' AND j.expr + j.part + j.toast_cols = 0 THEN
           'hotheap would not help: heap''s HOT decision is already exact for these indexes'
         WHEN j.amname = 'heap' AND j.upd = 0 THEN
           format('hotheap could help once the table is updated (%s expression, %s partial index(es), %s toastable indexed column(s)); convert without rewrite: SELECT %s.hotplus_convert(%L::regclass)',
                  j.expr, j.part, j.toast_cols, x.schema, j.oid::regclass::text)
         WHEN j.amname = 'heap' THEN
           format('convert: %s%% of %s updates were HOT; %s expression and %s partial index(es) and %s toastable indexed column(s) block HOT on heap where no index value changes. SELECT %s.hotplus_convert(%L::regclass) switches without rewriting',
                  coalesce(j.share, 0), j.upd, j.expr, j.part, j.toast_cols, x.schema, j.oid::regclass::text)
         WHEN j.hp_updates IS NULL THEN
           format('hotheap: %s%% of %s updates HOT (pg_stat_user_tables); no hotplus statistics in this %s yet',
                  coalesce(j.share, 0), j.upd,
                  CASE WHEN @extschema@.hotplus_stat_mode() = 'shared' THEN 'cluster' ELSE 'session' END)
         ELSE
           format('hotheap: %s%% of %s updates HOT (hotplus''s counts since their last reset), %s of them HOT only thanks to hotheap%s',
                  coalesce(j.share, 0), j.upd, j.gained,
                  CASE WHEN j.ff_suggested IS NOT NULL THEN
                    format('; %s of %s updates changed no index but found no room on the page%s: ALTER TABLE %s SET (fillfactor = %s), then VACUUM FULL (or let updates spread it) and SELECT %s.hotplus_stat_reset() before asking again',
                           j.room_hot, j.hp_updates,
                           CASE WHEN j.room_hot_estimated > 0 THEN
                             format(' (%s of them estimated from a sample of the %s not checked)',
                                    j.room_hot_estimated, j.unchecked)
                           ELSE '' END,
                           j.oid::regclass, j.ff_suggested, x.schema)
                  ELSE '' END)
       END
FROM judged j CROSS JOIN ext x
ORDER BY j.amname DESC, j.upd DESC, j.oid::regclass::text;
$$;

/* hotplus_stat_distributed_tables: the same for its remote query and advice, and the
   counters of hotplus_stat_tables it lacked (check_failures, verified, verify_sampled_out)
   and the new one (index_hints, issue 55 below), appended. Replaced as hotplus--1.3--1.4.sql
   replaced it, keeping its privileges. It reads the nodes' hotplus_stat_tables, which gains
   index_hints below: the remote query runs on the nodes when the view is read, after the
   whole script (every node's hotplus must be 1.6). */
CREATE FUNCTION @extschema@.hotplus_distributed_stat_tables_next(
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
    OUT advice pg_catalog.text,
    OUT nonhot_page_full_unchecked pg_catalog.int8, OUT unchecked_hot_estimate pg_catalog.int8,
    OUT check_failures pg_catalog.int8, OUT verified pg_catalog.int8,
    OUT verify_sampled_out pg_catalog.int8, OUT index_hints pg_catalog.int8)
RETURNS SETOF pg_catalog.record
LANGUAGE plpgsql VOLATILE
SET search_path = pg_catalog, pg_temp
AS $function$
#variable_conflict use_column
DECLARE
    -- The schema hotplus is in, as SQL names it (the remote query and the advice name it).
    ext_schema constant text := (SELECT format('%I', n.nspname)
                                 FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                                 WHERE e.extname = 'hotplus');
    -- Every plain heap or hotheap table whose name ends like a shard's, with its counters.
    on_each_node constant text := format($remote$
        SELECT coalesce(pg_catalog.json_agg(pg_catalog.json_build_object(
                   'nsp', n.nspname, 'rel', c.relname, 'am', a.amname,
                   'n_tup_upd', s.n_tup_upd, 'n_tup_hot_upd', s.n_tup_hot_upd,
                   'updates', h.updates, 'hot_stock', h.hot_stock,
                   'hot_by_expression', h.hot_by_expression, 'hot_by_partial', h.hot_by_partial,
                   'hot_by_image', h.hot_by_image, 'toast_reused', h.toast_reused,
                   'nonhot_index_changed', h.nonhot_index_changed,
                   'nonhot_page_full', h.nonhot_page_full, 'nonhot_other', h.nonhot_other,
                   'checks_skipped', h.checks_skipped, 'check_time_ms', h.check_time_ms,
                   'read_scans', h.read_scans, 'read_rows', h.read_rows,
                   'nonhot_page_full_unchecked', h.nonhot_page_full_unchecked,
                   'unchecked_hot_estimate', h.unchecked_hot_estimate,
                   'check_failures', h.check_failures, 'verified', h.verified,
                   'verify_sampled_out', h.verify_sampled_out, 'index_hints', h.index_hints)), '[]')
        FROM pg_catalog.pg_class c
        JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
        JOIN pg_catalog.pg_am a ON a.oid OPERATOR(pg_catalog.=) c.relam
        LEFT JOIN pg_catalog.pg_stat_all_tables s ON s.relid OPERATOR(pg_catalog.=) c.oid
        LEFT JOIN %s.hotplus_stat_tables h ON h.relid OPERATOR(pg_catalog.=) c.oid
        WHERE c.relkind OPERATOR(pg_catalog.=) 'r' AND a.amname IN ('heap', 'hotheap')
          AND c.relname OPERATOR(pg_catalog.~) '_[0-9]+$'
    $remote$, ext_schema);
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
            check_time_ms float8, read_scans int8, read_rows int8,
            nonhot_page_full_unchecked int8, unchecked_hot_estimate int8,
            check_failures int8, verified int8, verify_sampled_out int8, index_hints int8)
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
               sum(t.read_scans)::int8 AS read_scans, sum(t.read_rows)::int8 AS read_rows,
               sum(t.nonhot_page_full_unchecked)::int8 AS nonhot_page_full_unchecked,
               sum(t.unchecked_hot_estimate)::int8 AS unchecked_hot_estimate,
               sum(t.check_failures)::int8 AS check_failures, sum(t.verified)::int8 AS verified,
               sum(t.verify_sampled_out)::int8 AS verify_sampled_out,
               sum(t.index_hints)::int8 AS index_hints
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
               format('mixed: %s of %s shard placements use hotheap, the coordinator''s table %s; run SELECT %s(%L::regclass) again to finish the switch',
                      k.hotheap_placements, k.placements, a.amname,
                      ext_schema || CASE WHEN a.amname = 'hotheap' THEN '.hotplus_convert' ELSE '.hotplus_revert' END,
                      p.logicalrelid::regclass::text)
             WHEN a.amname = 'heap' AND coalesce(ix.gainful, 0) = 0 THEN
               'hotheap would not help: heap''s HOT decision is already exact for these indexes'
             WHEN a.amname = 'heap' THEN
               format('convert: %s%% of %s updates on the shards were HOT; SELECT %s.hotplus_convert(%L::regclass) switches every shard without rewriting',
                      CASE WHEN t.n_tup_upd > 0 THEN round(100.0 * t.n_tup_hot_upd / t.n_tup_upd, 1) ELSE 0 END,
                      coalesce(t.n_tup_upd, 0), ext_schema, p.logicalrelid::regclass::text)
             ELSE
               format('hotheap: %s%% of %s updates on the shards HOT, %s of them HOT only thanks to hotheap',
                      CASE WHEN t.n_tup_upd > 0 THEN round(100.0 * t.n_tup_hot_upd / t.n_tup_upd, 1) ELSE 0 END,
                      coalesce(t.n_tup_upd, 0),
                      coalesce(t.hot_by_expression + t.hot_by_partial + t.hot_by_image, 0))
           END,
           t.nonhot_page_full_unchecked, t.unchecked_hot_estimate,
           t.check_failures, t.verified, t.verify_sampled_out, t.index_hints
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

CREATE OR REPLACE VIEW @extschema@.hotplus_stat_distributed_tables AS
SELECT * FROM @extschema@.hotplus_distributed_stat_tables_next();

SELECT @extschema@.hotplus_take_privileges('hotplus_distributed_stat_tables', 'hotplus_distributed_stat_tables_next');
DROP FUNCTION @extschema@.hotplus_distributed_stat_tables();
ALTER FUNCTION @extschema@.hotplus_distributed_stat_tables_next() RENAME TO hotplus_distributed_stat_tables;

COMMENT ON FUNCTION @extschema@.hotplus_distributed_stat_tables() IS
  'per Citus distributed table: hotplus statistics summed over its shards on every node, and advice (no rows without Citus)';

/* ---- Issue 55: non-HOT updates tell each index whether its key changed ------------------- */
/* hotplus_stat_tables.index_hints: the indexes non-HOT updates told "key unchanged"
   (src/update/index_hints.hpp), for btree's bottom-up deletion. Replaced as
   hotplus--1.3--1.4.sql replaced it: the view keeps its columns and appends the new one, and
   moves to a function that returns it, which takes the old one's privileges and name. */
CREATE FUNCTION @extschema@.hotplus_stat_tables_internal_next(
    OUT relid pg_catalog.oid, OUT mode pg_catalog.text,
    OUT updates pg_catalog.int8, OUT hot_stock pg_catalog.int8,
    OUT hot_by_expression pg_catalog.int8, OUT hot_by_partial pg_catalog.int8,
    OUT hot_by_image pg_catalog.int8, OUT toast_reused pg_catalog.int8,
    OUT nonhot_index_changed pg_catalog.int8, OUT nonhot_page_full pg_catalog.int8,
    OUT nonhot_other pg_catalog.int8, OUT checks_skipped pg_catalog.int8,
    OUT check_time_ms pg_catalog.float8,
    OUT read_scans pg_catalog.int8, OUT read_rows pg_catalog.int8,
    OUT check_failures pg_catalog.int8,
    OUT verified pg_catalog.int8, OUT verify_sampled_out pg_catalog.int8,
    OUT nonhot_page_full_unchecked pg_catalog.int8, OUT unchecked_hot_estimate pg_catalog.int8,
    OUT index_hints pg_catalog.int8)
RETURNS SETOF pg_catalog.record
AS 'MODULE_PATHNAME', 'hotplus_stat_tables_internal'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE OR REPLACE VIEW @extschema@.hotplus_stat_tables AS
SELECT s.relid,
       c.relname,
       s.mode,
       s.updates,
       s.hot_stock,
       s.hot_by_expression,
       s.hot_by_partial,
       s.hot_by_image,
       s.toast_reused,
       s.nonhot_index_changed,
       s.nonhot_page_full,
       s.nonhot_other,
       s.checks_skipped,
       s.check_time_ms,
       s.read_scans,
       s.read_rows,
       s.check_failures,
       s.verified,
       s.verify_sampled_out,
       s.nonhot_page_full_unchecked,
       s.unchecked_hot_estimate,
       s.index_hints
FROM @extschema@.hotplus_stat_tables_internal_next() s
JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) s.relid;

SELECT @extschema@.hotplus_take_privileges('hotplus_stat_tables_internal', 'hotplus_stat_tables_internal_next');
DROP FUNCTION @extschema@.hotplus_stat_tables_internal();
ALTER FUNCTION @extschema@.hotplus_stat_tables_internal_next() RENAME TO hotplus_stat_tables_internal;

COMMENT ON VIEW @extschema@.hotplus_stat_tables IS
  'per hotheap table: how many updates were HOT and why, how many were not and why (nonhot_page_full_unchecked: no room, indexes not evaluated; unchecked_hot_estimate: of those, how many would have been HOT with room, estimated from a sample); how many scans the read path served; how many decisions failed inside hotplus (check_failures, should be 0); how many updates hotplus.verify checked and left out; how many indexes of non-HOT updates were told their key did not change (index_hints)';

DROP FUNCTION @extschema@.hotplus_take_privileges(pg_catalog.text, pg_catalog.text);
