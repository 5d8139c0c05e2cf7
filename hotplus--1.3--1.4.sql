/* hotplus 1.3 -> 1.4: one section per change of issue 32, each appended on its own (never
   rewrite this file whole: several changes of 1.4 share it). */
\echo Use "ALTER EXTENSION hotplus UPDATE TO '1.4'" to load this file. \quit

/* ---- Issue 32 part 2: the contrib tools that refuse relam <> heap ----------------------- */
/* The contrib functions that refuse relam <> heap, run on a hotheap table presented as heap
   for that one call (src/am/contrib_as_heap.hpp): same arguments, same results, the contrib
   extension must be installed in the database, and a role may call a wrapper exactly when
   it may call the contrib function (EXECUTE checked at each call). Nothing is written but
   what the contrib function writes, so the read-only ones run on a standby. */
CREATE FUNCTION @extschema@.hotplus_pgstattuple(IN reloid pg_catalog.regclass,
    OUT table_len pg_catalog.int8, OUT tuple_count pg_catalog.int8, OUT tuple_len pg_catalog.int8,
    OUT tuple_percent pg_catalog.float8, OUT dead_tuple_count pg_catalog.int8,
    OUT dead_tuple_len pg_catalog.int8, OUT dead_tuple_percent pg_catalog.float8,
    OUT free_space pg_catalog.int8, OUT free_percent pg_catalog.float8)
AS 'MODULE_PATHNAME', 'hotplus_pgstattuple'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE FUNCTION @extschema@.hotplus_pgstattuple_approx(IN reloid pg_catalog.regclass,
    OUT table_len pg_catalog.int8, OUT scanned_percent pg_catalog.float8,
    OUT approx_tuple_count pg_catalog.int8, OUT approx_tuple_len pg_catalog.int8,
    OUT approx_tuple_percent pg_catalog.float8, OUT dead_tuple_count pg_catalog.int8,
    OUT dead_tuple_len pg_catalog.int8, OUT dead_tuple_percent pg_catalog.float8,
    OUT approx_free_space pg_catalog.int8, OUT approx_free_percent pg_catalog.float8)
AS 'MODULE_PATHNAME', 'hotplus_pgstattuple_approx'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

-- Not strict, as amcheck's: a NULL argument gets verify_heapam's own answer.
CREATE FUNCTION @extschema@.hotplus_verify_heapam(relation pg_catalog.regclass,
    on_error_stop pg_catalog.bool DEFAULT false,
    check_toast pg_catalog.bool DEFAULT false,
    skip pg_catalog.text DEFAULT 'none',
    startblock pg_catalog.int8 DEFAULT NULL,
    endblock pg_catalog.int8 DEFAULT NULL,
    blkno OUT pg_catalog.int8, offnum OUT pg_catalog.int4,
    attnum OUT pg_catalog.int4, msg OUT pg_catalog.text)
RETURNS SETOF pg_catalog.record
AS 'MODULE_PATHNAME', 'hotplus_verify_heapam'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

CREATE FUNCTION @extschema@.hotplus_pgrowlocks(IN relname pg_catalog.text,
    OUT locked_row pg_catalog.tid, OUT locker pg_catalog.xid, OUT multi pg_catalog.bool,
    OUT xids pg_catalog.xid[], OUT modes pg_catalog.text[], OUT pids pg_catalog.int4[])
RETURNS SETOF pg_catalog.record
AS 'MODULE_PATHNAME', 'hotplus_pgrowlocks'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE FUNCTION @extschema@.hotplus_heap_force_kill(reloid pg_catalog.regclass, tids pg_catalog.tid[])
RETURNS pg_catalog.void
AS 'MODULE_PATHNAME', 'hotplus_heap_force_kill'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE;

CREATE FUNCTION @extschema@.hotplus_heap_force_freeze(reloid pg_catalog.regclass, tids pg_catalog.tid[])
RETURNS pg_catalog.void
AS 'MODULE_PATHNAME', 'hotplus_heap_force_freeze'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION @extschema@.hotplus_pgstattuple(pg_catalog.regclass) IS
  'pgstattuple(regclass) on a hotheap table (needs the extension pgstattuple)';
COMMENT ON FUNCTION @extschema@.hotplus_pgstattuple_approx(pg_catalog.regclass) IS
  'pgstattuple_approx(regclass) on a hotheap table (needs the extension pgstattuple)';
COMMENT ON FUNCTION @extschema@.hotplus_verify_heapam(pg_catalog.regclass, pg_catalog.bool, pg_catalog.bool, pg_catalog.text, pg_catalog.int8, pg_catalog.int8) IS
  'amcheck''s verify_heapam() on a hotheap table (needs the extension amcheck)';
COMMENT ON FUNCTION @extschema@.hotplus_pgrowlocks(pg_catalog.text) IS
  'pgrowlocks(text) on a hotheap table (needs the extension pgrowlocks)';
COMMENT ON FUNCTION @extschema@.hotplus_heap_force_kill(pg_catalog.regclass, pg_catalog.tid[]) IS
  'pg_surgery''s heap_force_kill() on a hotheap table (needs the extension pg_surgery)';
COMMENT ON FUNCTION @extschema@.hotplus_heap_force_freeze(pg_catalog.regclass, pg_catalog.tid[]) IS
  'pg_surgery''s heap_force_freeze() on a hotheap table (needs the extension pg_surgery)';

/* ---- Issue 32 part 1: counts a DBA can act on ------------------------------------------ */
/* - hotplus_stat_tables.verified and verify_sampled_out: updates hotplus.verify checked, and
     those it would have checked that hotplus.verify_sample_rate left out (and after them
     issue 41's nonhot_page_full_unchecked and unchecked_hot_estimate: its section below).
   - hotplus_stat_indexes.nonhot_first_changed: the non-HOT updates in which this index was
     the first hotplus found changed (the decision stops there; another index of the same
     update may have changed too). It is what blocked_hot counted, under a name that says
     so; blocked_hot stays beside it, a deprecated alias, until hotplus 2.0.
   - hotplus_advise() judges a hotheap table on hotplus's own counters alone (one epoch), and
     suggests a fillfactor only from 1,000 updates on (its 1.4 definition: issue 41's
     section below).
   Both views are replaced, never dropped, so that users' views, functions and grants on
   them stay (issue 41): CREATE OR REPLACE VIEW keeps the columns and appends the new ones,
   and hotplus_stat_tables moves to a function that returns them, made under another name
   that it then takes (as in hotplus--1.0--1.1.sql). */
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
    OUT nonhot_page_full_unchecked pg_catalog.int8, OUT unchecked_hot_estimate pg_catalog.int8)
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
       s.unchecked_hot_estimate
FROM @extschema@.hotplus_stat_tables_internal_next() s
JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) s.relid;

-- The privileges a DBA gave the function it replaces go with it (src/am/upgrade_privileges.cpp:
-- copied without becoming the extension's own in pg_init_privs, as a GRANT here would).
CREATE FUNCTION @extschema@.hotplus_take_privileges(pg_catalog.text, pg_catalog.text)
RETURNS pg_catalog.void AS 'MODULE_PATHNAME', 'hotplus_take_privileges' LANGUAGE C STRICT;
SELECT @extschema@.hotplus_take_privileges('hotplus_stat_tables_internal', 'hotplus_stat_tables_internal_next');
DROP FUNCTION @extschema@.hotplus_stat_tables_internal();
ALTER FUNCTION @extschema@.hotplus_stat_tables_internal_next() RENAME TO hotplus_stat_tables_internal;

COMMENT ON VIEW @extschema@.hotplus_stat_tables IS
  'per hotheap table: how many updates were HOT and why, how many were not and why (nonhot_page_full_unchecked: no room, indexes not evaluated; unchecked_hot_estimate: of those, how many would have been HOT with room, estimated from a sample); how many scans the read path served; how many decisions failed inside hotplus (check_failures, should be 0); how many updates hotplus.verify checked and left out';

-- The function keeps its column blocked_hot: the view names it twice.
CREATE OR REPLACE VIEW @extschema@.hotplus_stat_indexes AS
SELECT s.indexrelid,
       i.relname AS indexrelname,
       s.relid,
       c.relname,
       s.mode,
       s.blocked_hot,
       s.blocked_hot AS nonhot_first_changed
FROM @extschema@.hotplus_stat_indexes_internal() s
JOIN pg_catalog.pg_class i ON i.oid OPERATOR(pg_catalog.=) s.indexrelid
JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) s.relid;

COMMENT ON VIEW @extschema@.hotplus_stat_indexes IS
  'per index: the non-HOT updates in which it was the first index hotplus found changed';
COMMENT ON COLUMN @extschema@.hotplus_stat_indexes.blocked_hot IS
  'deprecated (1.4; removed in hotplus 2.0): the same as nonhot_first_changed';

/* ---- Issue 41: page-full updates counted as what they are ------------------------------ */
/* An update whose new version cannot fit on the page cannot be HOT, so hotplus evaluates no
   index expression or predicate for it; until now it was counted in nonhot_page_full ("no
   index changed") even when an index did change, and hotplus_advise() suggested a fillfactor
   that could not help.
   - hotplus_stat_tables.nonhot_page_full counts only updates known to change no index (from
     the column comparisons alone, or decided in full);
   - nonhot_page_full_unchecked: the page-full updates that would have needed an evaluation
     to tell (one of the outcome columns: they add up to updates);
   - unchecked_hot_estimate: of those, how many would have been HOT with room, estimated
     from a random sample of 1 in 16 that is decided in full (and counted in
     nonhot_page_full or nonhot_index_changed): each sampled one that changed no index adds
     15, the unsampled ones it stands for;
   - hotplus_advise() suggests a fillfactor only from updates that would have been HOT with
     room (nonhot_page_full and the estimate), and only below the table's own and above 50.
   (The view's columns are added in issue 32's section above, which replaces it once.) */
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
WITH tables AS (
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
           format('hotheap could help once the table is updated (%s expression, %s partial index(es), %s toastable indexed column(s)); convert without rewrite: SELECT @extschema@.hotplus_convert(%L::regclass)',
                  j.expr, j.part, j.toast_cols, j.oid::regclass::text)
         WHEN j.amname = 'heap' THEN
           format('convert: %s%% of %s updates were HOT; %s expression and %s partial index(es) and %s toastable indexed column(s) block HOT on heap where no index value changes. SELECT @extschema@.hotplus_convert(%L::regclass) switches without rewriting',
                  coalesce(j.share, 0), j.upd, j.expr, j.part, j.toast_cols, j.oid::regclass::text)
         WHEN j.hp_updates IS NULL THEN
           format('hotheap: %s%% of %s updates HOT (pg_stat_user_tables); no hotplus statistics in this %s yet',
                  coalesce(j.share, 0), j.upd,
                  CASE WHEN @extschema@.hotplus_stat_mode() = 'shared' THEN 'cluster' ELSE 'session' END)
         ELSE
           format('hotheap: %s%% of %s updates HOT (hotplus''s counts since their last reset), %s of them HOT only thanks to hotheap%s',
                  coalesce(j.share, 0), j.upd, j.gained,
                  CASE WHEN j.ff_suggested IS NOT NULL THEN
                    format('; %s of %s updates changed no index but found no room on the page%s: ALTER TABLE %s SET (fillfactor = %s), then VACUUM FULL (or let updates spread it) and SELECT @extschema@.hotplus_stat_reset() before asking again',
                           j.room_hot, j.hp_updates,
                           CASE WHEN j.room_hot_estimated > 0 THEN
                             format(' (%s of them estimated from a sample of the %s not checked)',
                                    j.room_hot_estimated, j.unchecked)
                           ELSE '' END,
                           j.oid::regclass, j.ff_suggested)
                  ELSE '' END)
       END
FROM judged j
ORDER BY j.amname DESC, j.upd DESC, j.oid::regclass::text;
$$;

/* Issue 41, continued: hotplus_stat_distributed_tables sums the two new columns over the
   shards too (appended after advice), and its advice passes ::regclass. Replaced as
   hotplus_stat_tables is above; the nodes' hotplus must be 1.4 (ALTER EXTENSION hotplus
   UPDATE on the coordinator updates every node). */
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
    OUT nonhot_page_full_unchecked pg_catalog.int8, OUT unchecked_hot_estimate pg_catalog.int8)
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
                   'read_scans', h.read_scans, 'read_rows', h.read_rows,
                   'nonhot_page_full_unchecked', h.nonhot_page_full_unchecked,
                   'unchecked_hot_estimate', h.unchecked_hot_estimate)), '[]')
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
            check_time_ms float8, read_scans int8, read_rows int8,
            nonhot_page_full_unchecked int8, unchecked_hot_estimate int8)
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
               sum(t.unchecked_hot_estimate)::int8 AS unchecked_hot_estimate
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
                      CASE WHEN a.amname = 'hotheap' THEN '@extschema@.hotplus_convert' ELSE '@extschema@.hotplus_revert' END,
                      p.logicalrelid::regclass::text)
             WHEN a.amname = 'heap' AND coalesce(ix.gainful, 0) = 0 THEN
               'hotheap would not help: heap''s HOT decision is already exact for these indexes'
             WHEN a.amname = 'heap' THEN
               format('convert: %s%% of %s updates on the shards were HOT; SELECT @extschema@.hotplus_convert(%L::regclass) switches every shard without rewriting',
                      CASE WHEN t.n_tup_upd > 0 THEN round(100.0 * t.n_tup_hot_upd / t.n_tup_upd, 1) ELSE 0 END,
                      coalesce(t.n_tup_upd, 0), p.logicalrelid::regclass::text)
             ELSE
               format('hotheap: %s%% of %s updates on the shards HOT, %s of them HOT only thanks to hotheap',
                      CASE WHEN t.n_tup_upd > 0 THEN round(100.0 * t.n_tup_hot_upd / t.n_tup_upd, 1) ELSE 0 END,
                      coalesce(t.n_tup_upd, 0),
                      coalesce(t.hot_by_expression + t.hot_by_partial + t.hot_by_image, 0))
           END,
           t.nonhot_page_full_unchecked, t.unchecked_hot_estimate
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
DROP FUNCTION @extschema@.hotplus_take_privileges(pg_catalog.text, pg_catalog.text);

COMMENT ON FUNCTION @extschema@.hotplus_distributed_stat_tables() IS
  'per Citus distributed table: hotplus statistics summed over its shards on every node, and advice (no rows without Citus)';

/* ---- Issue 40: one detoasted copy per row, in every plan node ------------------------- */
/* The read path's marker (src/read/shared_detoast.hpp): the planner wraps a column read by a
   built-in function in a call of this function, which serves one detoasted copy per row to
   every such reference of the plan node. Its arguments and result are `internal`, so SQL
   cannot call it; the executor calls it with the current role's EXECUTE privilege, which a
   plan is made without when it is missing (the read path then leaves the plan as heap's).
   Do not revoke EXECUTE on it from roles that read hotheap tables. */
CREATE FUNCTION @extschema@.hotplus_shared_value(pg_catalog.internal, pg_catalog.internal)
RETURNS pg_catalog.internal
AS 'MODULE_PATHNAME', 'hotplus_shared_value'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.hotplus_shared_value(pg_catalog.internal, pg_catalog.internal) IS
  'hotplus read path: one detoasted copy of a column per row for a plan node (planner use only)';

/* What the markers did in this backend since it started: values detoasted into a shared
   copy, references served by a copy made for another reference, and stored values passed on
   as heap passes them (no copy could be kept or used there). */
CREATE FUNCTION @extschema@.hotplus_shared_detoast_counts(
    OUT copies_made pg_catalog.int8, OUT copies_served pg_catalog.int8,
    OUT passed_stored pg_catalog.int8)
RETURNS pg_catalog.record
AS 'MODULE_PATHNAME', 'hotplus_shared_detoast_counts'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION @extschema@.hotplus_shared_detoast_counts() IS
  'hotplus read path: this backend''s shared detoast counts (copies made, references served from a copy, values passed on as stored)';
