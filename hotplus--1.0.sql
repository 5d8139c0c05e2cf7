-- hotplus 1.0: the hotheap table access method.
-- Every object is schema-qualified with @extschema@ or pg_catalog, so the script does
-- not depend on the caller's search_path.

\echo Use "CREATE EXTENSION hotplus" to load this file. \quit

CREATE FUNCTION @extschema@.hotheap_tableam_handler(pg_catalog.internal)
RETURNS pg_catalog.table_am_handler
AS 'MODULE_PATHNAME', 'hotheap_tableam_handler'
LANGUAGE C STRICT;

COMMENT ON FUNCTION @extschema@.hotheap_tableam_handler(pg_catalog.internal) IS
  'table access method handler of hotheap';

CREATE ACCESS METHOD hotheap TYPE TABLE HANDLER @extschema@.hotheap_tableam_handler;

COMMENT ON ACCESS METHOD hotheap IS
  'the heap, on disk and in WAL, with HOT updates decided per index by hotplus';

-- ---------------------------------------------------------------------------------------
-- Statistics: why updates of hotheap tables were or were not HOT.
-- Backend mode (default): the calling backend's own counts. Shared mode (hotplus in
-- shared_preload_libraries): cluster-wide counts of the current database.

CREATE FUNCTION @extschema@.hotplus_stat_tables_internal(
    OUT relid pg_catalog.oid, OUT mode pg_catalog.text,
    OUT updates pg_catalog.int8, OUT hot_stock pg_catalog.int8,
    OUT hot_by_expression pg_catalog.int8, OUT hot_by_partial pg_catalog.int8,
    OUT hot_by_image pg_catalog.int8, OUT toast_reused pg_catalog.int8,
    OUT nonhot_index_changed pg_catalog.int8, OUT nonhot_page_full pg_catalog.int8,
    OUT nonhot_other pg_catalog.int8, OUT checks_skipped pg_catalog.int8,
    OUT check_time_ms pg_catalog.float8)
RETURNS SETOF pg_catalog.record
AS 'MODULE_PATHNAME', 'hotplus_stat_tables_internal'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE FUNCTION @extschema@.hotplus_stat_indexes_internal(
    OUT indexrelid pg_catalog.oid, OUT relid pg_catalog.oid, OUT mode pg_catalog.text,
    OUT blocked_hot pg_catalog.int8)
RETURNS SETOF pg_catalog.record
AS 'MODULE_PATHNAME', 'hotplus_stat_indexes_internal'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE FUNCTION @extschema@.hotplus_stat_mode()
RETURNS pg_catalog.text
AS 'MODULE_PATHNAME', 'hotplus_stat_mode'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

CREATE FUNCTION @extschema@.hotplus_stat_reset()
RETURNS pg_catalog.void
AS 'MODULE_PATHNAME', 'hotplus_stat_reset'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

-- Like pg_stat_reset(): superusers only, unless granted.
REVOKE ALL ON FUNCTION @extschema@.hotplus_stat_reset() FROM PUBLIC;

CREATE VIEW @extschema@.hotplus_stat_tables AS
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
       s.check_time_ms
FROM @extschema@.hotplus_stat_tables_internal() s
JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) s.relid;

CREATE VIEW @extschema@.hotplus_stat_indexes AS
SELECT s.indexrelid,
       i.relname AS indexrelname,
       s.relid,
       c.relname,
       s.mode,
       s.blocked_hot
FROM @extschema@.hotplus_stat_indexes_internal() s
JOIN pg_catalog.pg_class i ON i.oid OPERATOR(pg_catalog.=) s.indexrelid
JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) s.relid;

-- Readable by everyone, like pg_stat_user_tables and pg_stat_statements.
GRANT SELECT ON @extschema@.hotplus_stat_tables, @extschema@.hotplus_stat_indexes TO PUBLIC;

COMMENT ON VIEW @extschema@.hotplus_stat_tables IS
  'per hotheap table: how many updates were HOT and why, how many were not and why';
COMMENT ON VIEW @extschema@.hotplus_stat_indexes IS
  'per index: how many updates it kept from being HOT';

-- ---------------------------------------------------------------------------------------
-- Zero-rewrite conversion: switch a table (or every partition of a partitioned table)
-- between heap and hotheap by changing only the catalog. The caller must own the tables.
-- Returns the number of tables switched. Takes ACCESS EXCLUSIVE locks held until the
-- end of the transaction: run it in a short transaction of its own.

CREATE FUNCTION @extschema@.hotplus_convert(rel pg_catalog.regclass)
RETURNS pg_catalog.int4
AS 'MODULE_PATHNAME', 'hotplus_convert'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE;

CREATE FUNCTION @extschema@.hotplus_revert(rel pg_catalog.regclass)
RETURNS pg_catalog.int4
AS 'MODULE_PATHNAME', 'hotplus_revert'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION @extschema@.hotplus_convert(pg_catalog.regclass) IS
  'switch a heap table (or all partitions) to hotheap without rewriting it';
COMMENT ON FUNCTION @extschema@.hotplus_revert(pg_catalog.regclass) IS
  'switch a hotheap table (or all partitions) back to heap without rewriting it';

-- ---------------------------------------------------------------------------------------
-- Advice: which heap tables hotheap would help, how the hotheap tables are doing, and a
-- fillfactor when updates fail for lack of room on the page. Reads the statistics views
-- and the catalogs only; lists the tables of the current database the caller can see.

CREATE FUNCTION @extschema@.hotplus_advise(
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
    SELECT h.relid AS oid, h.updates, h.nonhot_page_full,
           h.hot_by_expression + h.hot_by_partial + h.hot_by_image AS gained
    FROM @extschema@.hotplus_stat_tables h
),
facts AS (
    SELECT t.oid, t.amname, t.ff,
           coalesce(ix.expr, 0) AS expr, coalesce(ix.part, 0) AS part,
           coalesce(tc.cols, 0) AS toast_cols,
           coalesce(u.upd, 0) AS upd, coalesce(u.hot, 0) AS hot,
           hp.updates AS hp_updates, hp.nonhot_page_full, hp.gained
    FROM tables t
    LEFT JOIN indexes ix ON ix.oid = t.oid
    LEFT JOIN toastable tc ON tc.oid = t.oid
    LEFT JOIN usage u ON u.oid = t.oid
    LEFT JOIN hp ON hp.oid = t.oid
),
judged AS (
    SELECT f.*,
           CASE WHEN f.upd > 0 THEN round(100.0 * f.hot / f.upd, 1) END AS share,
           CASE WHEN f.hp_updates > 0 AND f.nonhot_page_full * 10 > f.hp_updates
                THEN greatest(50, least(f.ff, 100) - 20) END AS ff_suggested
    FROM facts f
)
SELECT j.oid::regclass, j.amname, j.expr, j.part, j.toast_cols, j.upd, j.share, j.ff, j.ff_suggested,
       CASE
         WHEN j.amname = 'heap' AND j.expr + j.part + j.toast_cols = 0 THEN
           'hotheap would not help: heap''s HOT decision is already exact for these indexes'
         WHEN j.amname = 'heap' AND j.upd = 0 THEN
           format('hotheap could help once the table is updated (%s expression, %s partial index(es), %s toastable indexed column(s)); convert without rewrite: SELECT hotplus_convert(%L)',
                  j.expr, j.part, j.toast_cols, j.oid::regclass::text)
         WHEN j.amname = 'heap' THEN
           format('convert: %s%% of %s updates were HOT; %s expression and %s partial index(es) and %s toastable indexed column(s) block HOT on heap where no index value changes. SELECT hotplus_convert(%L) switches without rewriting',
                  coalesce(j.share, 0), j.upd, j.expr, j.part, j.toast_cols, j.oid::regclass::text)
         WHEN j.hp_updates IS NULL THEN
           format('hotheap: %s%% of %s updates HOT; no hotplus statistics in this %s yet',
                  coalesce(j.share, 0), j.upd,
                  CASE WHEN @extschema@.hotplus_stat_mode() = 'shared' THEN 'cluster' ELSE 'session' END)
         ELSE
           format('hotheap: %s%% of %s updates HOT, %s of them HOT only thanks to hotheap%s',
                  coalesce(j.share, 0), j.upd, j.gained,
                  CASE WHEN j.ff_suggested IS NOT NULL THEN
                    format('; %s of %s updates found no room on the page: ALTER TABLE %s SET (fillfactor = %s)',
                           j.nonhot_page_full, j.hp_updates, j.oid::regclass, j.ff_suggested)
                  ELSE '' END)
       END
FROM judged j
ORDER BY j.amname DESC, j.upd DESC, j.oid::regclass::text;
$$;

COMMENT ON FUNCTION @extschema@.hotplus_advise() IS
  'heap and hotheap tables: what hotheap would gain or gains, and fillfactor advice';
